import type { ContextManager } from '@ctxkit/core';
import type { ProviderName } from './providers/provider-name';

/** The default bound on model calls in one run. */
export const DEFAULT_MAX_STEPS = 20;

/**
 * Settings of one kernel agent (DI token `IAgentOptions`). `createAgent` fills them from an agent
 * handle; tests register them by hand.
 */
export interface AgentOptions {
  agentId: string;
  /** The strategy's plugin id, carried by every event. */
  strategyId: string;
  /** The system prompt given to `composePayload` on every step. @default '' */
  systemPrompt?: string;
  /** Bound on model calls per run. @default 20 */
  maxSteps?: number;
  /**
   * Wire format whose validity rules every payload is checked against before it is sent.
   * @default 'anthropic' for an `AnthropicClient`, else 'openai-chat'
   */
  provider?: ProviderName;
  /** Model named in each request. @default the LLM client's default model */
  model?: string;
  /** `maxOutputTokens` of each request. @default the provider's default */
  maxOutputTokens?: number;
  /** Per-call timeout given to the client. @default the client's default */
  llmTimeoutMs?: number;
  /**
   * The context manager of another session (`runtime.loadAgent(...).forSession`). Without it, runs
   * with a `sessionId` other than the default one are refused.
   */
  contextManagerFor?: (sessionId: string) => ContextManager;
}
