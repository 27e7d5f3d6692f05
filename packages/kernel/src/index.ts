/**
 * @ctxkit/kernel: the agent loop that uses an IContextManager, LLM clients and provider adapters.
 * Explicit named exports only.
 * @see docs/08-kernel.md
 */
import 'reflect-metadata';

// provider adapters
export type {
  AnthropicContentBlock,
  AnthropicConversation,
  AnthropicMessage,
  AnthropicTool,
} from './providers/anthropic-adapter';
export {
  EARLIER_CONVERSATION_NOTE,
  fromAnthropicContent,
  fromAnthropicMessages,
  toAnthropicMessages,
  toAnthropicTools,
} from './providers/anthropic-adapter';
export type { OpenAIChatMessage } from './providers/openai-chat-adapter';
export { fromOpenAIChatMessage, toOpenAIChatMessages, toOpenAIChatTools } from './providers/openai-chat-adapter';
export type { ResponsesInputItem, ResponsesTool } from './providers/openai-responses-adapter';
export { fromResponsesOutput, toResponsesInput, toResponsesTools } from './providers/openai-responses-adapter';
export type { ProviderName } from './providers/provider-name';
export { PROVIDER_NAMES } from './providers/provider-name';
export type { ResponsesSyncResult } from './providers/responses-history-cache';
export { ResponsesHistoryCache } from './providers/responses-history-cache';
export type { ThinkingBindingReview } from './providers/thinking-prefix-binding';
export { ThinkingPrefixBinding } from './providers/thinking-prefix-binding';
export type { ToolCallIdRename, UniqueToolCallIds } from './providers/unique-tool-call-ids';
export { makeToolCallIdsUnique } from './providers/unique-tool-call-ids';
export type { ProviderCheckContext, ProviderProblem } from './providers/validate-for-provider';
export {
  findAnthropicProblems,
  findProviderProblems,
  THINKING_PREFIX_RULE,
  validateForProvider,
} from './providers/validate-for-provider';

// LLM clients
export type { OpenAICompatibleClientOptions } from './llm/openai-compatible-client';
export { OpenAICompatibleClient } from './llm/openai-compatible-client';
export type { OpenAICompatibleEmbedderOptions } from './llm/openai-compatible-embedder';
export type { OpenAIResponsesClientOptions } from './llm/openai-responses-client';
export { OpenAIResponsesClient } from './llm/openai-responses-client';
export { OPENAI_DEFAULT_BASE_URL } from './llm/openai-sdk-connection';
export type { RetryOptions } from './llm/retry-options';
/**
 * An `ITextEmbedder` on the OpenAI embeddings API (OpenAI, Ollama, llama.cpp server, vLLM …), configured like
 * `OpenAICompatibleClient`; give it to `createContextRuntime({ embedder })` so recall finds turns by meaning.
 */
export type { AnthropicClientOptions } from './llm/anthropic-client';
export {
  ANTHROPIC_API_VERSION,
  ANTHROPIC_COMPACTION_BETA,
  ANTHROPIC_DEFAULT_BASE_URL,
  AnthropicClient,
} from './llm/anthropic-client';
export type { LLMClientFromEnvOptions, LLMProviderFromEnv } from './llm/create-llm-client-from-env';
export { createLLMClientFromEnv } from './llm/create-llm-client-from-env';
export { OpenAICompatibleEmbedder } from './llm/openai-compatible-embedder';

// agent loop
export { Agent } from './agent';
export type { AgentOptions } from './agent-options';
export { DEFAULT_MAX_STEPS } from './agent-options';
export type { AgentRunOptions, AgentRunResult } from './agent-run';
export type { AgentHandleLike, CreateAgentOptions } from './create-agent';
export { createAgent } from './create-agent';
export { IAgentOptions, IToolRegistry } from './injection-tokens';
export type { ToolCallOutcome } from './loop/run-tools-step';
export type { AgentTool } from './tools/agent-tool';
export type { IToolRegistry as ToolRegistryContract } from './tools/tool-registry';
export { ToolRegistry } from './tools/tool-registry';

// budget engine and small-context adaptation
export type { TokenCalibrationReport } from './budget/agent-count-calibration';
export { classifyContextOverflow } from './budget/classify-context-overflow';
export type { OverflowRetryLimitInput } from './budget/overflow-retry-limit';
export { OVERFLOW_RETRY_SHARE, overflowRetryLimit } from './budget/overflow-retry-limit';
export type {
  PreSendCheckInput,
  PreSendReport,
  PreSendResult,
  PreSendStep,
  PreSendStepReport,
} from './budget/pre-send-check';
export { preSendCheck } from './budget/pre-send-check';
export type { OverflowRetryReport, RunBudgetReport } from './budget/run-budget-report';
export type {
  ResolvedToolOutputPolicy,
  ToolOutputCaps,
  ToolOutputCategory,
  ToolOutputPolicy,
  ToolOutputTruncation,
} from './budget/tool-output-policy';
export { DEFAULT_TOOL_OUTPUT_CAPS, resolveToolOutputPolicy } from './budget/tool-output-policy';
export type { ToolOutputTruncationReport, TruncateToolResultInput } from './budget/truncate-tool-result';
export { MIN_TOOL_OUTPUT_TOKENS, truncateToolResult } from './budget/truncate-tool-result';
export { CalibratedTokenCounter } from './count-calibration/calibrated-token-counter';
export type {
  CalibrationObservation,
  CountCalibrationOptions,
  CountCalibrationSnapshot,
} from './count-calibration/count-calibration';
export { CountCalibration } from './count-calibration/count-calibration';
export type { AnchoredCount, CountedPayload } from './count-calibration/usage-anchored-count';
export { UsageAnchoredCount } from './count-calibration/usage-anchored-count';
export type { PromptAndTools } from './small-context/select-prompt-and-tools';
export { PARTIAL_PROMPT_SHARE, selectPromptAndTools } from './small-context/select-prompt-and-tools';
export { smallContextFromManifest } from './small-context/small-context-from-manifest';
export type {
  SmallContextIntensity,
  SmallContextMode,
  SmallContextOptions,
  SmallContextOverride,
  SmallContextPlan,
} from './small-context/small-context-plan';
export {
  DEFAULT_SMALL_CONTEXT_THRESHOLD,
  planSmallContext,
  SMALL_CONTEXT_MODES,
  tierLabel,
} from './small-context/small-context-plan';
export { cannotFitAdvice, splitReadingAdvice } from './small-context/user-advice';
