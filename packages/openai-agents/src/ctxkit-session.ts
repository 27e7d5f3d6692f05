import { randomUUID } from 'node:crypto';
import {
  hasWhenIdle,
  IContextStore,
  safeEmit,
  type AgentHandle,
  type ComposeOptions,
  type IContextManager,
  type LLMPayload,
  type StoreKey,
  type TokenUsage,
  type ToolDefinition,
} from '@ctxkit/core';
import { contentText } from '@ctxkit/core/strategy-kit';
import type { AgentInputItem, CallModelInputFilter, CallModelInputFilterArgs, FunctionTool, Model, ModelInputData, Session, Usage } from '@openai/agents';
import type { OpenAIAgentsChatMessage } from './agents-origin';
import { contributedAgentsTools } from './contributed-agents-tools';
import { SessionInputMismatchError } from './errors/session-input-mismatch-error';
import { StrategyToolsModel } from './strategy-tools-model';
import { resolveAgent, type AgentSource } from './resolve-agent';
import { tokenUsagesOfRun } from './run-usage';
import { toAgentInputItems } from './to-agent-input-items';
import { convertItems, type ConvertedItems } from './to-chat-messages';
import { callerToolDefinitions, type SessionTool } from './tool-definitions';

/** Options of a {@link CtxkitSession} beside its strategy. */
export interface CtxkitSessionSettings {
  /** The conversation: one strategy instance and its state, one stored history. @default a random UUID */
  sessionId?: string;
  /**
   * The system prompt `getItems` composes with (the Agents SDK gives a session none). The
   * `callModelInputFilter` uses each model call's own instructions and remembers them for the next
   * `getItems`. @default ''
   */
  instructions?: string;
  /**
   * The tools `getItems` counts (ctxkit definitions or Agents SDK tools). The `callModelInputFilter`
   * counts the function tools of the agent being run and remembers them. The strategy's own tools
   * (`contributedTools()`) are left to the strategy, which adds them when it offers them. @default []
   */
  tools?: readonly SessionTool[];
  /** After reporting a finished turn, wait until the strategy's background work (a summary fold) is done. @default false */
  waitForIdle?: boolean;
  /** Called with every payload the strategy composed (stats: tokens, reductions). */
  onPayload?: (payload: LLMPayload) => void;
}

/** Options of {@link createCtxkitSession}: the strategy (an agent, a manifest or a plugin id) and the session's settings. */
export type CtxkitSessionOptions = AgentSource & CtxkitSessionSettings;

/** The store entry of the session's items. */
export const SESSION_ITEMS_STORE_NAME = 'openai-agents-items';

interface HistoryRead {
  /** Content keys of the items `getItems` returned, in order. */
  keys: string[];
  /** Items stored when they were read. */
  stored: number;
}

/** `value` as JSON with the keys of every object sorted. */
function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record).filter((key) => record[key] !== undefined).sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${stableJson(record[key])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * The content key of an item: its type, role, call id, name, arguments, content and output (every
 * field but its id, status and `providerData`), independent of key order. A copy of an item has
 * the key of the item.
 */
function contentKey(item: AgentInputItem): string {
  const { id: _id, status: _status, providerData: _providerData, ...content } = item as Record<string, unknown>;
  return stableJson({ ...content, type: content.type ?? 'message' });
}

/** The number of each key among `items`. */
function countKeys(items: readonly AgentInputItem[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const item of items) {
    const key = contentKey(item);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

/** Takes one `key` from `counts`: false when none is left. */
function takeKey(counts: Map<string, number>, key: string): boolean {
  const left = counts.get(key) ?? 0;
  if (left === 0) return false;
  if (left === 1) counts.delete(key);
  else counts.set(key, left - 1);
  return true;
}

/**
 * An Agents SDK `Session` whose history is kept in the ctxkit store of an agent and composed by its
 * strategy:
 * - `addItems` appends to the stored history and reports each finished turn (the history ends
 *   with an assistant answer) to the strategy's `onTurnComplete`;
 * - `getItems` returns the strategy's composed history for the next model call (its memory, such
 *   as a summary, as the items the strategy sends it in, a user message unless its `memoryRole` says
 *   system, then the newest history that fits), within the budget with the
 *   session's `instructions` and `tools`;
 * - `callModelInputFilter`, passed to `run` with the session, composes every model call of a run
 *   (tool loops included) from the whole stored history plus the run's new items, counting the
 *   call's own instructions and the agent's function tools.
 * One run at a time per session. The strategy's stored memory for the session is kept by
 * `clearSession` only as far as the strategy keeps it (it re-syncs with the shorter history).
 */
export class CtxkitSession implements Session {
  /** The strategy of this conversation. */
  readonly manager: IContextManager;
  /**
   * Pass it to `run` with the session: `run(agent, input, { session, callModelInputFilter:
   * session.callModelInputFilter })`. Preserves the identity of the items it passes through, so the
   * Agents SDK stores the run's input as given.
   */
  readonly callModelInputFilter: CallModelInputFilter;
  private readonly sessionId: string;
  private readonly store: IContextStore;
  private readonly key: StoreKey;
  private items: AgentInputItem[] | undefined;
  private converted: ConvertedItems = { messages: [], spans: [] };
  private read: HistoryRead | undefined;
  /**
   * Content keys (with their number) of the items the filter put in this run's model calls that the
   * Agents SDK did not give it: older history, a changed tool result, the strategy's memory. The
   * SDK passes them to `addItems` with the run's input; they are never stored again.
   */
  private injected = new Map<string, number>();
  /** The read whose run the injected items belong to. */
  private injectedRead: HistoryRead | undefined;
  private instructions: string;
  private tools: ToolDefinition[];
  private payload: LLMPayload | undefined;
  private strategyTools: FunctionTool[] | undefined;
  /** True once a model was wrapped by {@link wrapModel}: the strategy's tools stay enabled, the model's requests carry the offered ones. */
  private toolsFollowPayload = false;

  /**
   * A session of `agent` (from `runtime.loadAgent`). `createCtxkitSession` loads the agent for you.
   * @throws StoreKeyError (`CTXKIT_STORE_KEY_INVALID`) for a session id that cannot be a store key part
   */
  constructor(
    readonly agent: AgentHandle,
    private readonly settings: CtxkitSessionSettings = {},
    private readonly release: () => Promise<void> = async () => undefined,
  ) {
    this.sessionId = settings.sessionId ?? randomUUID();
    this.manager = agent.forSession(this.sessionId);
    this.store = agent.container.resolve(IContextStore);
    this.key = { agentId: agent.id, sessionId: this.sessionId, kind: 'state', name: SESSION_ITEMS_STORE_NAME };
    this.instructions = settings.instructions ?? '';
    this.tools = callerToolDefinitions(settings.tools ?? []);
    this.callModelInputFilter = Object.assign((args: CallModelInputFilterArgs) => this.filter(args), { preserveInputIdentity: true });
  }

  /** The last payload the strategy composed for this session, with its stats. */
  get lastPayload(): LLMPayload | undefined {
    return this.payload;
  }

  /**
   * The tools the strategy contributes (`tool_output_cache`, `tool_output_cache_grep`, `compact` of
   * the tool output cache) as Agents SDK function tools run by this session's strategy: give them to
   * the agent run with this session, `new Agent({ tools: [...yourTools, ...session.contributedTools()] })`
   * (or `agent.clone({ tools: [...agent.tools, ...session.contributedTools()] })` per conversation).
   * Each is enabled for a model call while the strategy's latest composition for this session
   * offered it, and counted as the strategy defined it. The same array on every call; empty for a
   * strategy that contributes none.
   */
  contributedTools(): FunctionTool[] {
    this.strategyTools ??= contributedAgentsTools(this.manager, {
      agentId: this.agent.id,
      sessionId: this.sessionId,
      offers: (name) => this.toolsFollowPayload || this.offers(name),
    });
    return this.strategyTools;
  }

  /**
   * `model` sending each request with exactly the strategy tools its own composition offers. The
   * Agents SDK decides which tools a call gets before the input filter composes that call, so without
   * it the strategy's tools follow the composition of the call before (a model may then not call an
   * expand tool its payload names, or get a definition its payload did not count). Give the wrapped
   * model to the agent that runs with this session: `new Agent({ model: session.wrapModel(model), tools: [...yourTools, ...session.contributedTools()] })`.
   */
  wrapModel(model: Model): Model {
    this.toolsFollowPayload = true;
    const own = new Set(this.contributedTools().map((contributed) => contributed.name));
    return new StrategyToolsModel(model, { own, offers: (name) => this.offers(name) });
  }

  /** True when the strategy's latest composition for this session offered the tool named `name`. */
  private offers(name: string): boolean {
    return this.payload?.tools.some((definition) => definition.function.name === name) ?? false;
  }

  /**
   * Records what each model call of a finished run used: pass the run's usage
   * (`result.runContext.usage`) once the run is over. Emits `llm-usage` on the agent's events per
   * call (cache reads and writes apart from the rest of the input; the Agents SDK reports no model
   * per call, so `model` is the agent's) and returns the calls' usage.
   */
  recordUsage(usage: Usage): TokenUsage[] {
    const calls = tokenUsagesOfRun(usage);
    const turn = this.converted.messages.filter((message) => message.role === 'user').length;
    for (const call of calls) {
      safeEmit(this.agent.events, 'llm-usage', { agentId: this.agent.id, sessionId: this.sessionId, strategyId: this.agent.strategyId, turn, usage: call, model: this.agent.model });
    }
    return calls;
  }

  async getSessionId(): Promise<string> {
    return this.sessionId;
  }

  /** Every stored item, as added (what `getItems` composes from). */
  async getStoredItems(): Promise<AgentInputItem[]> {
    return structuredClone(await this.load());
  }

  /**
   * The strategy's composed history for the next model call: most recent `limit` items when given.
   * @throws the strategy's typed errors (`CTXKIT_BUDGET_EXCEEDED` when the instructions and tools alone exceed the budget ...)
   */
  async getItems(limit?: number): Promise<AgentInputItem[]> {
    await this.load();
    // A read of the window: the input filter composes what each model call is sent.
    let out = await this.compose(this.instructions, this.tools, this.converted.messages, { sent: false });
    if (limit !== undefined) out = limit <= 0 ? [] : withoutLeadingResults(out.slice(-limit));
    const copy = structuredClone(out);
    this.read = { keys: copy.map(contentKey), stored: this.items!.length };
    return copy;
  }

  /**
   * Appends items to the stored history; reports the history to the strategy when it ends a turn.
   * Items the filter added to a model call of the run (history older than `getItems` returned, a
   * tool result the strategy changed, its memory) are recognized by content and never stored again:
   * the stored history gets the run's new items, once each.
   * @throws AgentInputItemError (`CTXKIT_HISTORY_INVALID`) for an item that is not a valid input item (nothing is stored)
   */
  async addItems(items: AgentInputItem[]): Promise<void> {
    const stored = await this.load();
    const injected = new Map(this.injected);
    const added = items.filter((item) => !takeKey(injected, contentKey(item)));
    if (added.length === 0) {
      this.injected = injected;
      return;
    }
    const converted = appendConverted(this.converted, stored, added);
    const next = [...stored, ...structuredClone(added)];
    await this.store.set(this.key, next);
    this.items = next;
    this.converted = converted;
    this.injected = injected;
    const last = converted.messages.at(-1);
    if (last?.role === 'assistant' && !last.tool_calls?.length) {
      await this.manager.onTurnComplete(converted.messages);
      if (this.settings.waitForIdle && hasWhenIdle(this.manager)) await this.manager.whenIdle();
    }
  }

  async popItem(): Promise<AgentInputItem | undefined> {
    const stored = await this.load();
    if (stored.length === 0) return undefined;
    const next = stored.slice(0, -1);
    await this.store.set(this.key, next);
    this.items = next;
    this.converted = convertItems(next);
    return structuredClone(stored.at(-1));
  }

  async clearSession(): Promise<void> {
    await this.store.delete(this.key);
    this.items = [];
    this.converted = { messages: [], spans: [] };
    this.read = undefined;
    this.injected = new Map();
    this.injectedRead = undefined;
  }

  /** Releases the agent and runtime `createCtxkitSession` created (nothing for an agent you passed). Safe twice. */
  async dispose(): Promise<void> {
    await this.release();
  }

  private async load(): Promise<AgentInputItem[]> {
    if (this.items === undefined) {
      const stored = (await this.store.get<AgentInputItem[]>(this.key)) ?? [];
      this.converted = convertItems(stored);
      this.items = stored;
    }
    return this.items;
  }

  private async compose(instructions: string, tools: ToolDefinition[], history: OpenAIAgentsChatMessage[], options?: ComposeOptions): Promise<AgentInputItem[]> {
    const payload = await (options === undefined ? this.manager.composePayload(instructions, history, tools) : this.manager.composePayload(instructions, history, tools, undefined, options));
    this.payload = payload;
    this.settings.onPayload?.(payload);
    const [first, ...rest] = payload.messages;
    const messages = first?.role === 'system' && contentText(first.content) === instructions ? rest : payload.messages;
    return toAgentInputItems(messages);
  }

  private async filter({ modelData, agent }: CallModelInputFilterArgs): Promise<ModelInputData> {
    const read = this.read;
    if (read === undefined) throw new SessionInputMismatchError(this.sessionId, 'callModelInputFilter ran in a run that did not read this session');
    const input = modelData.input;
    const matches = input.length >= read.keys.length && read.keys.every((key, index) => contentKey(input[index]!) === key);
    if (!matches) throw new SessionInputMismatchError(this.sessionId, "the model input does not start with the history this session's getItems returned");
    const stored = await this.load();
    const fresh = input.slice(read.keys.length + Math.max(0, stored.length - read.stored));
    this.instructions = modelData.instructions ?? this.settings.instructions ?? '';
    const agentTools = (agent as { tools?: readonly SessionTool[] }).tools;
    if (Array.isArray(agentTools) && agentTools.length > 0) this.tools = callerToolDefinitions(agentTools);
    const history = appendConverted(this.converted, stored, fresh).messages;
    const composed = await this.compose(this.instructions, this.tools, history);
    this.noteInjected(read, input, composed);
    return { ...modelData, input: composed };
  }

  /**
   * Remembers, by content, the items of `composed` that `input` does not hold (as many times as
   * they are missing from it): the SDK stores them with the run's input unless told apart. Counted
   * over every model call of the run, a new run starting afresh.
   */
  private noteInjected(read: HistoryRead, input: readonly AgentInputItem[], composed: readonly AgentInputItem[]): void {
    if (this.injectedRead !== read) {
      this.injected = new Map();
      this.injectedRead = read;
    }
    const given = countKeys(input);
    const missing = new Map<string, number>();
    for (const item of composed) {
      const key = contentKey(item);
      if (!takeKey(given, key)) missing.set(key, (missing.get(key) ?? 0) + 1);
    }
    for (const [key, count] of missing) this.injected.set(key, Math.max(this.injected.get(key) ?? 0, count));
  }
}

/** `items` without the function results at their start (their calls were cut off by a limit). */
function withoutLeadingResults(items: AgentInputItem[]): AgentInputItem[] {
  let start = 0;
  while (start < items.length && (items[start] as { type?: unknown }).type === 'function_call_result') start++;
  return items.slice(start);
}

/**
 * The conversion of `stored` followed by `added`, reusing the messages of `converted` (the
 * conversion of `stored`): only the last assistant step is converted again, as new items may
 * belong to it.
 */
function appendConverted(converted: ConvertedItems, stored: readonly AgentInputItem[], added: readonly AgentInputItem[]): ConvertedItems {
  if (added.length === 0) return converted;
  const messages = converted.messages.slice();
  const spans = converted.spans.slice();
  let from = stored.length;
  if (messages.at(-1)?.role === 'assistant') {
    messages.pop();
    from -= spans.pop()!;
  }
  const tail = convertItems([...stored.slice(from), ...added], from);
  return { messages: [...messages, ...tail.messages], spans: [...spans, ...tail.spans] };
}

/**
 * A {@link CtxkitSession} whose strategy comes from an agent, an agent manifest or a plugin id:
 *
 *     const session = await createCtxkitSession({ pluginId: 'std-summarization-strategy', config: { maxContextTokens: 16000 } });
 *     await run(agent, 'Hello', { session, callModelInputFilter: session.callModelInputFilter });
 *
 * @throws AgentSourceError (`CTXKIT_CONFIG_INVALID`) for options that do not name exactly one strategy source
 * @throws the runtime's typed errors (`CTXKIT_PLUGIN_NOT_FOUND`, `CTXKIT_CONFIG_INVALID`, `CTXKIT_STORE_KEY_INVALID` ...)
 */
export async function createCtxkitSession(options: CtxkitSessionOptions): Promise<CtxkitSession> {
  const { agent, dispose } = await resolveAgent(options);
  try {
    return new CtxkitSession(agent, options, dispose);
  } catch (error) {
    await dispose();
    throw error;
  }
}
