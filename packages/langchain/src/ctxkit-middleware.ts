import {
  type AgentHandle,
  type AgentSource,
  AgentSourceError,
  type ChatMessage,
  hasWhenIdle,
  lazyAgent,
  type LLMPayload,
  PIN_CONTEXT_TOOL,
  safeEmit,
  toCacheMissReport,
  type ToolDefinition,
  UNPIN_CONTEXT_TOOL,
} from '@ctxkit/core';
import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import type { StructuredToolInterface } from '@langchain/core/tools';
import { type AgentMiddleware, createMiddleware } from 'langchain';

import { LANGCHAIN_AGENT_SOURCE } from './agent-source';
import { contributedLangChainTools } from './contributed-tools';
import { HistoryConverter } from './history-converter';
import { toModelMessages } from './model-messages';
import { type LangGraphRun, sessionFor, type SessionIdResolver, threadSessionId } from './session-id';
import { tokenUsageOf } from './token-usage-of';
import { isClientTool, toolNameOf, toToolDefinition } from './tool-definitions';

/** What a `ragContext` function gets: the run, and the conversation as the agent holds it. */
export interface RagContextInput extends LangGraphRun {
  messages: BaseMessage[];
}

/**
 * Options of {@link ctxkitMiddleware}: where the strategy comes from (core's `AgentSource`), plus how the middleware
 * uses it.
 */
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
  /**
   * The ctxkit agent whose strategy composes each model call (its `events`, `config`, sessions),
   * once opened (by the first model call, or {@link getAgent}).
   * @throws AgentSourceError (`CTXKIT_CONFIG_INVALID`) before the agent is open
   */
  readonly agent: AgentHandle;
  /** The ctxkit agent, opened now if it was not (loading its plugin, creating the runtime). */
  getAgent(): Promise<AgentHandle>;
  /** Disposes the agent and runtime the middleware created (a caller's agent is left to the caller). Safe twice. */
  dispose(): Promise<void>;
};

/**
 * The tools a session contributes beside the strategy: the caller's to count, bound on every call (no strategy adds
 * them).
 */
const SESSION_TOOLS: ReadonlySet<string> = new Set([PIN_CONTEXT_TOOL, UNPIN_CONTEXT_TOOL]);

/** The strategy's tools of an opened agent, by name, and which of them a payload decides on. */
interface StrategyTools {
  byName: Map<string, StructuredToolInterface>;
  /** Bound on every call and counted as the caller's (the pin tools). */
  always: StructuredToolInterface[];
}

/**
 * A LangChain v1 agent middleware that lets a ctxkit strategy compose every model call of
 * `createAgent`: before each call the conversation (`state.messages`), the system prompt and the
 * tools go to the session's `composePayload`, and the model gets what the strategy returns: within
 * its budget, tool calls and their results kept or dropped together, the newest user message always
 * there. The strategy's system messages (the dynamic context; a running summary or an entity state with
 * `memoryRole: 'system'`) join the system message; memory sent as user messages (the default) opens
 * the conversation. Each call is bound exactly the tools its payload offers: the strategy's own
 * (`tool_output_cache`, `tool_output_cache_grep`, `compact`) join yours when the strategy offers
 * them, and a call of one runs through the strategy (LangChain's dynamic tools, through
 * `wrapToolCall`). At the end of each run the session's `onTurnComplete` gets the whole conversation.
 * The agent's state keeps every message: only the model's view is composed.
 *
 * Synchronous, as LangChain's own middleware factories are: the options are checked at once, and the
 * strategy's agent is opened by the first model call.
 *
 * ```ts
 * const ctxkit = ctxkitMiddleware({ pluginId: 'std-summarization-strategy', config: { maxContextTokens: 16000 } });
 * const agent = createAgent({ model, tools, systemPrompt, middleware: [ctxkit] });
 * await agent.invoke({ messages: [new HumanMessage('Hi')] }, { configurable: { thread_id: 'conversation-42' } });
 * ```
 * @throws AgentSourceError (`CTXKIT_CONFIG_INVALID`) for options that do not name exactly one strategy source
 */
export function ctxkitMiddleware(options: CtxkitMiddlewareOptions): CtxkitMiddleware {
  const source = lazyAgent(options, LANGCHAIN_AGENT_SOURCE);
  const resolve = options.sessionId ?? threadSessionId;
  const converter = new HistoryConverter();
  let strategyTools: StrategyTools | undefined;
  const toolsOf = (agent: AgentHandle): StrategyTools => {
    if (strategyTools === undefined) {
      const made = contributedLangChainTools(agent, resolve);
      strategyTools = { byName: new Map(), always: [] };
      for (const tool of made) {
        if (SESSION_TOOLS.has(tool.name)) strategyTools.always.push(tool);
        else strategyTools.byName.set(tool.name, tool);
      }
    }
    return strategyTools;
  };
  const definitionsOf = new WeakMap<readonly unknown[], ToolDefinition[]>();
  /**
   * The caller's tools (and the pin tools) as ctxkit definitions (the strategy adds its own to a payload when they are
   * useful).
   */
  const callerDefinitions = (
    requestTools: readonly unknown[],
    always: readonly StructuredToolInterface[],
  ): ToolDefinition[] => {
    let definitions = definitionsOf.get(requestTools);
    if (definitions === undefined) {
      definitions = [...requestTools, ...always].filter(isClientTool).map(toToolDefinition);
      definitionsOf.set(requestTools, definitions);
    }
    return definitions;
  };

  const middleware = createMiddleware({
    name: options.name ?? 'ctxkit',
    wrapModelCall: async (request, handler) => {
      const agent = await source.get();
      const own = toolsOf(agent);
      const run: LangGraphRun = { configurable: request.runtime.configurable, context: request.runtime.context };
      const { sessionId, manager } = sessionFor(agent, resolve, run);
      const history = converter.convert(request.messages);
      const definitions = callerDefinitions(request.tools, own.always);
      const rag = options.ragContext ? await options.ragContext({ ...run, messages: request.messages }) : undefined;
      const systemPrompt = request.systemMessage.text;
      const payload =
        rag === undefined
          ? await manager.composePayload(systemPrompt, history, definitions.slice())
          : await manager.composePayload(systemPrompt, history, definitions.slice(), rag);
      options.onPayload?.(payload, sessionId);
      const { systemMessage, messages } = toModelMessages(payload.messages, request.systemMessage);
      const offered = new Set(payload.tools.map((tool) => tool.function.name));
      const boundTools: Array<(typeof request.tools)[number]> = request.tools.filter(
        (tool) => !isClientTool(tool) || offered.has(toolNameOf(tool) ?? ''),
      );
      const given = new Set(request.tools.map(toolNameOf));
      for (const tool of [...own.always, ...own.byName.values()])
        if (offered.has(tool.name) && !given.has(tool.name)) boundTools.push(tool);
      const answer = await handler({
        ...request,
        ...(systemMessage === request.systemMessage ? {} : { systemMessage }),
        messages,
        tools: boundTools,
      });
      recordUsage(agent, sessionId, history, answer);
      return answer;
    },
    wrapToolCall: async (request, handler) => {
      if (request.tool !== undefined) return handler(request);
      const agent = source.opened;
      const own = agent ? toolsOf(agent) : undefined;
      const tool =
        own?.byName.get(request.toolCall.name) ??
        own?.always.find((candidate) => candidate.name === request.toolCall.name);
      return handler(tool ? { ...request, tool } : request);
    },
    afterAgent: async (state, runtime) => {
      const agent = await source.get();
      const { manager } = sessionFor(agent, resolve, { configurable: runtime.configurable, context: runtime.context });
      await manager.onTurnComplete(converter.convert(state.messages));
      if (options.waitForIdle && hasWhenIdle(manager)) await manager.whenIdle();
    },
  });
  return Object.defineProperties(middleware, {
    agent: {
      get: (): AgentHandle => {
        const agent = source.opened;
        if (agent === undefined) {
          throw new AgentSourceError(
            'ctxkitMiddleware',
            'the agent is not open yet',
            'Await middleware.getAgent() (the first model call opens it too) before reading middleware.agent.',
          );
        }
        return agent;
      },
    },
    getAgent: { value: () => source.get() },
    dispose: { value: () => source.dispose() },
  }) as CtxkitMiddleware;
}

/**
 * A {@link ctxkitMiddleware} whose agent is opened before it is returned.
 * @deprecated Use `ctxkitMiddleware(options)`: synchronous, it opens the agent on the first model call.
 * @throws AgentSourceError (`CTXKIT_CONFIG_INVALID`) for options that do not name exactly one strategy source
 * @throws the runtime's typed errors while loading the agent (`CTXKIT_PLUGIN_NOT_FOUND`, `CTXKIT_CONFIG_INVALID`,
 *   `CTXKIT_MANIFEST_INVALID` ...)
 */
export async function createCtxkitMiddleware(options: CtxkitMiddlewareOptions): Promise<CtxkitMiddleware> {
  const middleware = ctxkitMiddleware(options);
  try {
    await middleware.getAgent();
  } catch (error) {
    await middleware.dispose();
    throw error;
  }
  return middleware;
}

/**
 * Emits `llm-usage` for one model call of a conversation, as the kernel does for its own: the
 * answer's `usage_metadata` (cache reads and writes apart, the one-hour writes and a cache-miss
 * diagnosis from the provider's fields in `response_metadata`). An answer without usage records nothing.
 */
function recordUsage(agent: AgentHandle, sessionId: string, history: readonly ChatMessage[], answer: unknown): void {
  if (!AIMessage.isInstance(answer) || answer.usage_metadata === undefined) return;
  const metadata = answer.response_metadata as Record<string, unknown> | undefined;
  const model =
    [metadata?.model_name, metadata?.model].find((value): value is string => typeof value === 'string') ?? 'unknown';
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
