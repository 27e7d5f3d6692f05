import type { IContextManager, IContextStore, ITokenCounter } from '@ctxkit/core';

import type { ToolOutputCaps, ToolOutputPolicy } from './budget/tool-output-policy';
import type { ProviderName } from './providers/provider-name';
import type { SmallContextOptions } from './small-context/small-context-plan';

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
   * @default the LLM client's `provider` (`anthropic` for an `AnthropicClient`, `openai-responses` for an
   * `OpenAIResponsesClient`, `openai-chat` for an `OpenAICompatibleClient`), else 'openai-chat'
   */
  provider?: ProviderName;
  /**
   * Model named in each request. @default the manifest's `model` (`createAgent`), else the LLM client's default model
   */
  model?: string;
  /**
   * `maxOutputTokens` of each request (the client sends it as `max_tokens`).
   * @default what the payload's budget reserves for the answer (`stats.budget.reserveOutputTokens`), else none
   */
  maxOutputTokens?: number;
  /** Per-call timeout given to the client. @default the client's default */
  llmTimeoutMs?: number;
  /**
   * The context manager of a session, the default one included (`runtime.loadAgent(...).forSession`):
   * with it, the agent needs no `IContextManager` in its container. Without it, the container's
   * `IContextManager` serves the default session and runs with another `sessionId` are refused.
   */
  contextManagerFor?: (sessionId: string, resourceId?: string) => IContextManager;
  /**
   * The context window the small-context matrix is chosen for.
   * @default the strategy's ceiling (`stats.budget.maxContextTokens` of the first payload); `createAgent` fills
   * it from the strategy config's `maxContextTokens`, else the model registry's window
   */
  contextWindow?: number;
  /**
   * Counts payloads for the pre-send check and tool outputs for truncation: use the strategy's counter.
   * @default the agent container's `ITokenCounter` (`createAgent`), else an exact counter for `model`
   */
  counter?: ITokenCounter;
  /**
   * Learn the provider's token counts from the input tokens it reports after each call, and hold
   * payloads to the calibrated count (see docs/13-token-counting.md). Offline and scripted clients
   * teach nothing. @default true
   */
  calibrateTokenCounts?: boolean;
  /**
   * Where the agent keeps what it learns across sessions and processes (the token-count correction).
   * @default the agent container's `IContextStore` (`createAgent`), else nothing is kept
   */
  store?: IContextStore;
  /** Small-context modes A–D: threshold, compact prompt, essential tools, forced modes. @default automatic by window */
  smallContext?: SmallContextOptions;
  /** Per-tool truncation policy overriding the choice by name and arguments, e.g. `{ run_tests: { kind: 'tail' } }`. */
  toolOutputPolicies?: Record<string, ToolOutputPolicy>;
  /**
   * Memory-protection caps applied before the budget. @default 30 KB command output, 2000 lines read, 500 lines search
   */
  toolOutputCaps?: Partial<ToolOutputCaps>;
  /**
   * Agent-side truncation of tool outputs to the budget. `auto` turns it off when
   * the strategy declares `truncatesToolOutputs` (it fits outputs itself and keeps them recoverable
   * by ref, as std-tool-output-cache-strategy does); the memory caps always apply.
   * @default 'auto'
   */
  agentSideTruncation?: 'auto' | 'on' | 'off';
}
