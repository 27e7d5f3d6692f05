import {
  type AgentHandle,
  type AgentSource,
  AgentSourceError,
  type ComposeOptions,
  DEFAULT_SESSION_ID,
  type IContextManager,
  type LazyAgent,
  lazyAgent,
} from '@ctxkit/core';
import type { LanguageModelMiddleware, ModelMessage, ToolSet } from 'ai';

import { AI_SDK_AGENT_SOURCE, AiSdkContext } from './ai-sdk-context';
import type { ComposedMessages, ComposeMessagesInput } from './compose-messages';
import type { RagContextSource } from './compose-settings';

/**
 * Options of {@link ctxkitMiddleware}: where the strategy comes from (core's `AgentSource`), the conversation, and how
 * to compose.
 */
export interface CtxkitMiddlewareOptions extends AgentSource {
  /** The conversation: one strategy instance and its state per session. @default 'default' */
  sessionId?: string;
  /** Retrieved knowledge sent as the dynamic context: a text, or a function of the history. */
  ragContext?: RagContextSource;
  /** How the payload is shaped (`collapseOlderToolResults` for small windows). */
  composeOptions?: ComposeOptions;
  /** Wait for the strategy's background work (summaries, extraction) after each finished turn. @default false */
  waitForIdle?: boolean;
}

/**
 * A language-model middleware for `wrapLanguageModel`, with the conversation's strategy behind it:
 * its tools for `generateText` / `streamText`, a composition for a loop of your own, its other
 * conversations.
 */
export interface CtxkitLanguageModelMiddleware extends LanguageModelMiddleware {
  /** This conversation's id. */
  readonly sessionId: string;
  /**
   * The ctxkit agent (its `events`, `config`, sessions) once opened (by the first model call, or {@link getAgent}).
   * @throws AgentSourceError (`CTXKIT_CONFIG_INVALID`) before the agent is open
   */
  readonly agent: AgentHandle;
  /** The ctxkit agent, opened now if it was not (loading its plugin, creating the runtime). */
  getAgent(): Promise<AgentHandle>;
  /** The conversation's strategy instance (its context manager), opening the agent if needed. */
  getManager(): Promise<IContextManager>;
  /**
   * Your tools plus the strategy's (`tool_output_cache`, `tool_output_cache_grep`, `compact` ...) as
   * AI SDK tools executed by the strategy, for `tools` of `generateText` / `streamText`. The
   * middleware sends each request exactly the tools its payload offers. A tool of yours with a
   * strategy tool's name hides it (a `strategy-warning` event says so).
   */
  tools<TOOLS extends ToolSet = {}>(tools?: TOOLS): Promise<TOOLS & ToolSet>;
  /**
   * Composes an AI SDK conversation with the strategy, for a loop of your own: what to send as
   * `instructions`, `messages` and `activeTools`, and the payload with its stats.
   */
  compose(input: ComposeMessagesInput): Promise<ComposedMessages>;
  /** Reports a finished turn (the whole conversation, oldest first) to the strategy's `onTurnComplete`. */
  reportTurn(messages: ReadonlyArray<ModelMessage>): Promise<void>;
  /** The same agent's middleware for another conversation (its own strategy instance and state). */
  forSession(sessionId: string): CtxkitLanguageModelMiddleware;
  /** Waits for the strategy's background work (summaries, extraction), when it has any. */
  whenIdle(): Promise<void>;
  /**
   * Releases the agent and runtime the middleware opened (nothing for an agent you passed). Safe twice; shared by
   * {@link forSession}'s middlewares.
   */
  dispose(): Promise<void>;
}

/** Settings every conversation of one middleware shares. */
interface Shared {
  source: LazyAgent;
  ragContext?: RagContextSource;
  composeOptions?: ComposeOptions;
  waitForIdle: boolean;
}

function middlewareFor(shared: Shared, sessionId: string): CtxkitLanguageModelMiddleware {
  let opening: Promise<AiSdkContext> | undefined;
  const context = (): Promise<AiSdkContext> => {
    opening ??= shared.source.get().then(
      (agent) => {
        const settings: ConstructorParameters<typeof AiSdkContext>[2] = { waitForIdle: shared.waitForIdle };
        if (shared.ragContext !== undefined) settings.ragContext = shared.ragContext;
        if (shared.composeOptions !== undefined) settings.composeOptions = shared.composeOptions;
        return new AiSdkContext(agent, sessionId, settings, {
          disposed: false,
          release: () => shared.source.dispose(),
        });
      },
      (error: unknown) => {
        opening = undefined;
        throw error;
      },
    );
    return opening;
  };
  return {
    specificationVersion: 'v4',
    sessionId,
    get agent(): AgentHandle {
      const agent = shared.source.opened;
      if (agent === undefined) {
        throw new AgentSourceError(
          'ctxkitMiddleware',
          'the agent is not open yet',
          'Await middleware.getAgent() (the first model call opens it too) before reading middleware.agent.',
        );
      }
      return agent;
    },
    getAgent: () => shared.source.get(),
    getManager: async () => (await context()).manager,
    async transformParams(options) {
      return (await context()).middleware.transformParams!(options);
    },
    async wrapGenerate(options) {
      return (await context()).middleware.wrapGenerate!(options);
    },
    async wrapStream(options) {
      return (await context()).middleware.wrapStream!(options);
    },
    async tools<TOOLS extends ToolSet = {}>(tools?: TOOLS): Promise<TOOLS & ToolSet> {
      return (await context()).tools(tools);
    },
    compose: async (input) => (await context()).compose(input),
    reportTurn: async (messages) => (await context()).reportTurn(messages),
    forSession: (id) => middlewareFor(shared, id),
    whenIdle: async () => (await context()).whenIdle(),
    dispose: () => shared.source.dispose(),
  };
}

/**
 * A language-model middleware that runs an agent's context strategy on every call of the wrapped
 * model, from `generateText`, `streamText` or a `ToolLoopAgent`: each call's prompt and tools are
 * composed by the strategy (within budget, tool-call groups whole, the newest user message kept),
 * and each turn that ends with an answer is reported to its `onTurnComplete`.
 *
 * Synchronous, as the AI SDK's own middleware factories are: the options are checked at once, and
 * the strategy's agent is opened by the first model call (or `getAgent()`, `tools()`).
 *
 * ```ts
 * const ctxkit = ctxkitMiddleware({
 *   pluginId: 'std-summarization-strategy',
 *   config: { maxContextTokens: 8000 },
 *   sessionId: 'conversation-42',
 * });
 * const result = await generateText({
 *   model: wrapLanguageModel({ model, middleware: ctxkit }),
 *   system, messages, tools: await ctxkit.tools(myTools), stopWhen: stepCountIs(10),
 * });
 * ```
 * @throws AgentSourceError (`CTXKIT_CONFIG_INVALID`) for options that do not name exactly one strategy source
 */
export function ctxkitMiddleware(options: CtxkitMiddlewareOptions): CtxkitLanguageModelMiddleware {
  const shared: Shared = { source: lazyAgent(options, AI_SDK_AGENT_SOURCE), waitForIdle: options.waitForIdle ?? false };
  if (options.ragContext !== undefined) shared.ragContext = options.ragContext;
  if (options.composeOptions !== undefined) shared.composeOptions = options.composeOptions;
  return middlewareFor(shared, options.sessionId ?? DEFAULT_SESSION_ID);
}
