import { hasWhenIdle, safeEmit, toCacheMissReport, type AgentHandle, type ChatMessage, type LLMPayload, type ToolDefinition } from '@ctxkit/core';
import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import { createMiddleware, type AgentMiddleware } from 'langchain';
import { contributedLangChainTools } from './contributed-tools';
import { HistoryConverter } from './history-converter';
import { toModelMessages } from './model-messages';
import { resolveAgent, type AgentSource } from './resolve-agent';
import { sessionFor, threadSessionId, type LangGraphRun, type SessionIdResolver } from './session-id';
import { tokenUsageOf } from './token-usage-of';
import { isClientTool, toolNameOf, toToolDefinition } from './tool-definitions';

/** What a `ragContext` function gets: the run, and the conversation as the agent holds it. */
export interface RagContextInput extends LangGraphRun {
  messages: BaseMessage[];
}

/** Options of {@link createCtxkitMiddleware}: where the strategy comes from, plus how the middleware uses it. */
export interface CtxkitMiddlewareOptions extends AgentSource {
  /** The conversation (ctxkit session) of a run. @default the run's `configurable.thread_id`, else `"default"` */
  sessionId?: SessionIdResolver;
  /** Wait for the strategy's background work (summaries, extraction) at the end of each run. @default false */
  waitForIdle?: boolean;
  /** Retrieved knowledge for the payload's dynamic context, per model call (`undefined`: none). */
  ragContext?: (input: RagContextInput) => string | undefined | Promise<string | undefined>;
  /** The middleware's name in LangChain. @default 'ctxkit' */
  name?: string;
  /** Called with each composed payload (its `stats`: tokens per section, every reduction), e.g. to log usage. */
  onPayload?: (payload: LLMPayload, sessionId: string) => void;
}

/** The middleware for `createAgent({ middleware: [...] })`, with the ctxkit agent behind it. */
export type CtxkitMiddleware = AgentMiddleware & {
  /** The ctxkit agent whose strategy composes each model call (its `events`, `config`, sessions). */
  readonly agent: AgentHandle;
  /** Disposes the agent and runtime the middleware created (a caller's agent is left to the caller). Safe twice. */
  dispose(): Promise<void>;
};

/**
 * A LangChain v1 agent middleware that lets a ctxkit strategy compose every model call of
 * `createAgent`: before each call the conversation (`state.messages`), the system prompt and the
 * tools go to the session's `composePayload`, and the model gets what the strategy returns: within
 * its budget, tool calls and their results kept or dropped together, the newest user message always
 * there. The strategy's system messages (the dynamic context; a running summary or an entity state with
 * `memoryRole: 'system'`) join the system message; memory sent as user messages (the default) opens
 * the conversation.
 * Tools the strategy leaves out of a payload are not bound for that call. At the end of each run
 * the session's `onTurnComplete` gets the whole conversation. The strategy's contributed tools
 * (`tool_output_cache`, `tool_output_cache_grep`, `compact`) are registered as the middleware's tools
 * and run through the strategy. The agent's state keeps every message: only the model's view is composed.
 *
 * ```ts
 * const ctxkit = await createCtxkitMiddleware({ pluginId: 'std-summarization-strategy', config: { maxContextTokens: 16000 } });
 * const agent = createAgent({ model, tools, systemPrompt, middleware: [ctxkit] });
 * await agent.invoke({ messages: [new HumanMessage('Hi')] }, { configurable: { thread_id: 'conversation-42' } });
 * ```
 * @throws AgentSourceError (`CTXKIT_CONFIG_INVALID`) for options that do not name exactly one strategy source
 * @throws the runtime's typed errors while loading the agent (`CTXKIT_PLUGIN_NOT_FOUND`, `CTXKIT_CONFIG_INVALID`, `CTXKIT_MANIFEST_INVALID` ...)
 */
export async function createCtxkitMiddleware(options: CtxkitMiddlewareOptions): Promise<CtxkitMiddleware> {
  const { agent, dispose } = await resolveAgent(options);
  const resolve = options.sessionId ?? threadSessionId;
  const converter = new HistoryConverter();
  const tools = contributedLangChainTools(agent, resolve);
  const contributed = new Set<unknown>(tools);
  const definitionsOf = new WeakMap<readonly unknown[], ToolDefinition[]>();
  /** The caller's tools as ctxkit definitions (the strategy adds its own to a payload when they are useful). */
  const callerDefinitions = (requestTools: readonly unknown[]): ToolDefinition[] => {
    let definitions = definitionsOf.get(requestTools);
    if (definitions === undefined) {
      definitions = requestTools.filter((tool) => isClientTool(tool) && !contributed.has(tool)).map(toToolDefinition);
      definitionsOf.set(requestTools, definitions);
    }
    return definitions;
  };

  const middleware = createMiddleware({
    name: options.name ?? 'ctxkit',
    tools,
    wrapModelCall: async (request, handler) => {
      const run: LangGraphRun = { configurable: request.runtime.configurable, context: request.runtime.context };
      const { sessionId, manager } = sessionFor(agent, resolve, run);
      const history = converter.convert(request.messages);
      const definitions = callerDefinitions(request.tools);
      const rag = options.ragContext ? await options.ragContext({ ...run, messages: request.messages }) : undefined;
      const systemPrompt = request.systemMessage.text;
      const payload =
        rag === undefined
          ? await manager.composePayload(systemPrompt, history, definitions.slice())
          : await manager.composePayload(systemPrompt, history, definitions.slice(), rag);
      options.onPayload?.(payload, sessionId);
      const { systemMessage, messages } = toModelMessages(payload.messages, request.systemMessage);
      const offered = new Set(payload.tools.map((tool) => tool.function.name));
      const boundTools = request.tools.filter((tool) => !isClientTool(tool) || offered.has(toolNameOf(tool) ?? ''));
      const answer = await handler({ ...request, ...(systemMessage === request.systemMessage ? {} : { systemMessage }), messages, tools: boundTools });
      recordUsage(agent, sessionId, history, answer);
      return answer;
    },
    afterAgent: async (state, runtime) => {
      const { manager } = sessionFor(agent, resolve, { configurable: runtime.configurable, context: runtime.context });
      await manager.onTurnComplete(converter.convert(state.messages));
      if (options.waitForIdle && hasWhenIdle(manager)) await manager.whenIdle();
    },
  });
  return Object.assign(middleware, { agent, dispose }) as CtxkitMiddleware;
}

/**
 * Emits `llm-usage` for one model call of a conversation, as the kernel does for its own: the
 * answer's `usage_metadata` (cache reads and writes apart, the one-hour writes and a cache-miss
 * diagnosis from the provider's fields in `response_metadata`). An answer without usage records nothing.
 */
function recordUsage(agent: AgentHandle, sessionId: string, history: readonly ChatMessage[], answer: unknown): void {
  if (!AIMessage.isInstance(answer) || answer.usage_metadata === undefined) return;
  const metadata = answer.response_metadata as Record<string, unknown> | undefined;
  const model = [metadata?.model_name, metadata?.model].find((value): value is string => typeof value === 'string') ?? 'unknown';
  const cacheMiss = toCacheMissReport(metadata);
  safeEmit(agent.events, 'llm-usage', {
    agentId: agent.id,
    sessionId,
    strategyId: agent.strategyId,
    turn: history.filter((message) => message.role === 'user').length,
    usage: tokenUsageOf(answer.usage_metadata, metadata),
    model,
    ...(cacheMiss ? { cacheMiss } : {}),
  });
}
