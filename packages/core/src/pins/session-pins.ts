import { withUsage } from '../budget/compute-budget';
import { usageLevel } from '../budget/usage-level';
import { DEFAULT_MEMORY_ROLE, type MemoryRole } from '../composer/memory-frame';
import type { ChatMessage, ChatRole, SystemMessage, UserMessage } from '../contracts/chat-message';
import type { IContextStore } from '../contracts/context-store';
import type { LLMPayload } from '../contracts/llm-payload';
import type { Pin, PinOptions } from '../contracts/pin';
import { PinBudgetExceededError } from '../errors/pin-budget-exceeded-error';
import { PinTargetError } from '../errors/pin-target-error';
import { type CtxkitEventBus, safeEmit } from '../events/event-bus';
import type { ITokenCounter } from '../token-counting/token-counter';
import type { DeclaredPin } from './declared-pin';
import { PIN_BLOCK_SEPARATOR, pinMessageText, renderPinBlock, renderPinEntry } from './pin-block';
import { DEFAULT_PIN_SHARE } from './pin-share';
import { PinStore } from './pin-store';
import { isCapturedMessagePin, PinnedHistory } from './pinned-history';
import { pinnedMessageText } from './pinned-message-text';
import { isCaptured, type PinsState, publicPin, type StoredPin } from './pins-state';

/** Longest label a pin may have, in characters. */
const MAX_LABEL_CHARS = 200;

const KNOWN_ROLES: ReadonlySet<unknown> = new Set<ChatRole>(['system', 'user', 'assistant', 'tool']);

/**
 * What {@link SessionPins} needs: the session's store, identity, counter, events and clock, and the agent's pin
 * settings.
 */
export interface SessionPinsOptions {
  store: IContextStore;
  agentId: string;
  sessionId: string;
  strategyId: string;
  /** Counts the pinned block (the strategy's model). */
  counter: ITokenCounter;
  events: CtxkitEventBus;
  now(): number;
  /** The agent manifest's declared pins, applied to the session once each. @default [] */
  declared?: readonly DeclaredPin[];
  /** Share of the available budget the pinned block may take. @default DEFAULT_PIN_SHARE */
  pinShare?: number;
  /**
   * Where the pinned block is sent: `user`, in its own user message after the payload's system
   * messages, framed as a quoted record; `system`, in the system message after the system prompt.
   * @default 'user'
   */
  pinRole?: MemoryRole;
  /** The available budget until the strategy's first payload reports it (`stats.budget.available`). */
  availableBudget?(): number | undefined;
}

/** The pinned block of one payload, as `stats.extra.pins` reports it. */
export interface PinStats {
  /** Pins shown in the block. */
  count: number;
  /**
   * Tokens the block adds to the payload: its user message with its preamble (or its text after the system prompt, with
   * `pinRole: 'system'`).
   */
  tokens: number;
  ids: string[];
}

/** A call into the strategy with the session's pins in it. */
export interface PinnedCall {
  /**
   * The system prompt the strategy is given: the caller's with the pinned block after it (the block
   * alone after an empty system prompt); with the block in its own user message, followed by room
   * for that message, so that the strategy counts every token the payload will hold.
   */
  systemPrompt: string;
  /** The history with pinned messages replaced by their stand-ins. */
  history: ChatMessage[];
  stats: PinStats;
  /** The pins shown. */
  shown: StoredPin[];
  /** False when no budget was known before the call: the share is checked against the payload's. */
  checked: boolean;
  /** Tokens of the block's pins, as the share counts them (the block after the system prompt, without a preamble). */
  blockTokens: number;
  /** With the block in its own user message: what the strategy's first message is replaced with. */
  moved?: MovedPinBlock;
}

/** The pinned block in its own user message, and the system prompt the strategy was given in its place. */
interface MovedPinBlock {
  /** The system prompt the strategy was given (`PinnedCall.systemPrompt`). */
  reserved: string;
  /** The caller's system prompt as the payload's first message; undefined for an empty one. */
  system: SystemMessage | undefined;
  /** The block's user message. */
  pins: UserMessage;
}

/** What ends the system prompt a strategy is given when the pinned block goes in its own message. */
export const PIN_ROOM_NOTE = '[room for the pinned block, sent in its own user message]';

/**
 * One session's pins: kept in the session's store, shown as one pinned block in every payload, with
 * each pinned message replaced by a short stand-in in the history the strategy sees. The block goes
 * in its own user message right after the payload's system messages, framed as a quoted record
 * (`pinRole: 'user'`, the default), or after the system prompt in the system message (`'system'`).
 * Either way the strategy is given it inside its system prompt, so that every strategy counts it and
 * never drops, summarizes or trims it; the session then moves it to its message. The block takes at
 * most `pinShare` of the strategy's available budget. See docs/14-controlling-what-survives.md.
 */
export class SessionPins {
  private readonly store: PinStore;
  private readonly history = new PinnedHistory();
  private readonly pinShare: number;
  private readonly pinRole: MemoryRole;
  private readonly declared: ReadonlyArray<{ key: string; pin: DeclaredPin }>;
  /** The available budget of the strategy's last payload. */
  private lastAvailable: number | undefined;
  /** The history of the last call, for the turn number of events. */
  private lastHistory: ReadonlyArray<ChatMessage> = [];
  private counted: { block: string; tokens: number } | undefined;
  /**
   * The moved block of the last call, reused while the system prompt and the block are the same (the same message
   * objects).
   */
  private lastMoved: { systemPrompt: string; block: string; moved: MovedPinBlock } | undefined;

  constructor(private readonly options: SessionPinsOptions) {
    this.store = new PinStore(options);
    this.pinShare = options.pinShare ?? DEFAULT_PIN_SHARE;
    this.pinRole = options.pinRole ?? DEFAULT_MEMORY_ROLE;
    this.declared = (options.declared ?? []).map((pin) => ({ key: JSON.stringify(pin), pin }));
  }

  /** The session's pins, in the order they were added. */
  async list(): Promise<Pin[]> {
    return (await this.current()).pins.map(publicPin);
  }

  /**
   * Adds a pin (or returns the one that already pins the same index or text).
   * @throws PinTargetError (`CTXKIT_PIN_TARGET_INVALID`) for a target or label it cannot pin
   * @throws PinBudgetExceededError (`CTXKIT_PIN_BUDGET_EXCEEDED`) when a text would take the pins past their share
   */
  async pin(target: number | string, options: PinOptions = {}): Promise<Pin> {
    const draft = this.draft(target, options);
    let added: StoredPin[] = [];
    let result: StoredPin | undefined;
    await this.store.update((stored) => {
      const declared = this.withDeclared(stored);
      const state = declared.state;
      added = declared.added;
      result = state.pins.find((pin) => samePin(pin, draft));
      if (result !== undefined) return added.length > 0 ? state : undefined;
      const pin: StoredPin = { ...draft, id: `p${state.next}`, createdAt: this.options.now() };
      if (pin.kind === 'text') {
        pin.tokens = this.options.counter.count(renderPinEntry(pin));
        const shown = [...state.pins.filter(isCaptured), pin];
        const available = this.available();
        if (available !== undefined) this.assertShare(shown, this.blockTokens(renderPinBlock(shown)), available);
      }
      result = pin;
      added = [...added, pin];
      return { ...state, next: state.next + 1, pins: [...state.pins, pin] };
    });
    for (const pin of added) this.emit('pin-added', pin);
    return publicPin(result!);
  }

  /** Removes a pin; false when the session has none with that id. */
  async unpin(pinId: string): Promise<boolean> {
    let added: StoredPin[] = [];
    let removed: StoredPin | undefined;
    await this.store.update((stored) => {
      const declared = this.withDeclared(stored);
      added = declared.added;
      removed = declared.state.pins.find((pin) => pin.id === pinId);
      if (removed === undefined) return added.length > 0 ? declared.state : undefined;
      return { ...declared.state, pins: declared.state.pins.filter((pin) => pin !== removed) };
    });
    for (const pin of added) this.emit('pin-added', pin);
    if (removed !== undefined) this.emit('pin-removed', removed);
    return removed !== undefined;
  }

  /**
   * The call into the strategy for `composePayload` (or `preview`): the system prompt with the pinned
   * block after it (and room for its own message, see {@link PinnedCall.systemPrompt}) and the history
   * with stand-ins; `undefined` when the session shows no pin. Message
   * pins whose index the history now reaches are captured first (stored, unless `persist` is false).
   * @throws PinBudgetExceededError (`CTXKIT_PIN_BUDGET_EXCEEDED`) when the block takes more than its share of a known
   *   budget
   */
  async prepare(systemPrompt: string, history: ChatMessage[], persist: boolean): Promise<PinnedCall | undefined> {
    this.lastHistory = history;
    let state = await this.current();
    if (state.pins.length === 0) return undefined;
    if (state.pins.some((pin) => captureOf(pin, history) !== undefined)) {
      state = persist
        ? await this.store.update((stored) => capturedIn(stored, history, this.options.counter))
        : (capturedIn(state, history, this.options.counter) ?? state);
    }
    const shown = state.pins.filter(isCaptured);
    if (shown.length === 0) return undefined;
    const block = renderPinBlock(shown);
    const tokens = this.blockTokens(block);
    const available = this.available();
    if (available !== undefined) this.assertShare(shown, tokens, available);
    const moved = this.pinRole === 'user' ? this.moved(systemPrompt, block) : undefined;
    return {
      systemPrompt:
        moved !== undefined
          ? moved.reserved
          : systemPrompt === ''
            ? block
            : `${systemPrompt}${PIN_BLOCK_SEPARATOR}${block}`,
      history: this.history.apply(history, shown.filter(isCapturedMessagePin)),
      stats: {
        count: shown.length,
        tokens: moved !== undefined ? this.options.counter.countMessage(moved.pins) : tokens,
        ids: shown.map((pin) => pin.id),
      },
      shown,
      checked: available !== undefined,
      blockTokens: tokens,
      ...(moved !== undefined ? { moved } : {}),
    };
  }

  /**
   * The block in its own user message, and the system prompt the strategy is given in its place: the
   * caller's, the block's message text, then {@link PIN_ROOM_NOTE} and as many ` .` as it takes for
   * that system message to count at least the caller's system message and the block's message
   * together. The payload the strategy composes within its budget then still fits it once its first
   * message is replaced by the two.
   */
  private moved(systemPrompt: string, block: string): MovedPinBlock {
    const last = this.lastMoved;
    if (last !== undefined && last.systemPrompt === systemPrompt && last.block === block) return last.moved;
    const { counter } = this.options;
    const pins: UserMessage = { role: 'user', content: pinMessageText(block) };
    const system: SystemMessage | undefined =
      systemPrompt === '' ? undefined : { role: 'system', content: systemPrompt };
    const needed = (system === undefined ? 0 : counter.countMessage(system)) + counter.countMessage(pins);
    let reserved =
      `${system === undefined ? '' : `${systemPrompt}${PIN_BLOCK_SEPARATOR}`}${pins.content as string}` +
      `\n${PIN_ROOM_NOTE}`;
    for (let guard = 0; guard < 256 && counter.countMessage({ role: 'system', content: reserved }) < needed; guard++)
      reserved += ' .';
    const moved: MovedPinBlock = { reserved, system, pins };
    this.lastMoved = { systemPrompt, block, moved };
    return moved;
  }

  /**
   * `payload` with its first message (the system prompt the strategy was given) replaced by the
   * caller's system prompt, and the block's user message after the payload's system messages. Its
   * stats count the two messages instead of the one (the system section less the block, the memory
   * section with it). A payload whose first message is not that system prompt (the strategy changed
   * it) is left as it is.
   */
  private moveBlock(payload: LLMPayload, moved: MovedPinBlock): LLMPayload {
    const messages = payload.messages;
    const first = messages?.[0];
    if (first === undefined || first.role !== 'system' || first.content !== moved.reserved) return payload;
    let at = 1;
    while (at < messages.length && messages[at]!.role === 'system') at++;
    // A provider's compaction item opens the conversation (Anthropic refuses its block anywhere else): the block goes
    // after it.
    if (opensWithProviderCompaction(messages[at])) at++;
    const out: ChatMessage[] = [
      ...(moved.system === undefined ? [] : [moved.system]),
      ...messages.slice(1, at),
      moved.pins,
      ...messages.slice(at),
    ];
    const stats = payload.stats;
    if (typeof stats?.output_tokens !== 'number' || typeof stats.sections?.system !== 'number')
      return { ...payload, messages: out };
    const { counter } = this.options;
    const system = moved.system === undefined ? 0 : counter.countMessage(moved.system);
    const pins = counter.countMessage(moved.pins);
    const removed = counter.countMessage(first);
    const used = stats.output_tokens - removed + system + pins;
    const input = stats.input_tokens;
    return {
      ...payload,
      messages: out,
      stats: {
        ...stats,
        output_tokens: used,
        sections: {
          ...stats.sections,
          system: stats.sections.system - removed + system,
          memory: (stats.sections.memory ?? 0) + pins,
        },
        messages: { ...stats.messages, output: out.length },
        budget: withUsage(stats.budget, used),
        usageLevel: usageLevel(used, stats.budget.maxContextTokens),
        compress_ratio: input === 0 ? 1 : used / input,
      },
    };
  }

  /**
   * The strategy's payload as the session returns it: the pinned block moved to its own user message
   * (with `pinRole: 'user'`) and `stats.extra.pins` added (a copy; the strategy's own objects are not
   * changed). Remembers the payload's available budget for the next share check.
   * @throws PinBudgetExceededError (`CTXKIT_PIN_BUDGET_EXCEEDED`) when the share could not be checked before and the
   *   block exceeds it
   */
  finish(payload: LLMPayload, call: PinnedCall | undefined): LLMPayload {
    const available = payload?.stats?.budget?.available;
    if (typeof available === 'number' && Number.isFinite(available)) this.lastAvailable = available;
    if (call === undefined) return payload;
    if (!call.checked && this.lastAvailable !== undefined)
      this.assertShare(call.shown, call.blockTokens, this.lastAvailable);
    if (call.moved !== undefined) payload = this.moveBlock(payload, call.moved);
    const stats = payload.stats ?? ({} as LLMPayload['stats']);
    return {
      ...payload,
      stats: { ...stats, extra: { ...(stats.extra ?? {}), pins: { ...call.stats, ids: [...call.stats.ids] } } },
    };
  }

  /**
   * `history` as the strategy sees it (stand-ins for the pinned messages), for `onTurnComplete` and compaction hooks.
   */
  async forStrategy(history: ChatMessage[]): Promise<ChatMessage[]> {
    const pinned = (await this.current()).pins.filter(isCapturedMessagePin);
    return this.history.apply(history, pinned);
  }

  /**
   * Messages from the strategy with every stand-in replaced by the pinned message (compacted histories, undone
   * compactions).
   */
  async restore(messages: ChatMessage[]): Promise<ChatMessage[]> {
    const pinned = (await this.current()).pins.filter(isCapturedMessagePin);
    return pinned.length === 0 ? messages : this.history.restore(messages, pinned);
  }

  /** The stored state with the manifest's declared pins applied (written once per declaration). */
  private async current(): Promise<PinsState> {
    const state = await this.store.read();
    if (this.declared.every(({ key }) => state.declared.includes(key))) return state;
    let added: StoredPin[] = [];
    const updated = await this.store.update((stored) => {
      const declared = this.withDeclared(stored);
      added = declared.added;
      return declared.state === stored ? undefined : declared.state;
    });
    for (const pin of added) this.emit('pin-added', pin);
    return updated;
  }

  /**
   * `state` with every declaration it has not applied yet added (a declaration that pins what is pinned adds nothing).
   */
  private withDeclared(state: PinsState): { state: PinsState; added: StoredPin[] } {
    const pending = this.declared.filter(({ key }) => !state.declared.includes(key));
    if (pending.length === 0) return { state, added: [] };
    let next = state.next;
    const pins = [...state.pins];
    const added: StoredPin[] = [];
    for (const { pin: declaration } of pending) {
      const draft = declaredDraft(declaration);
      if (pins.some((pin) => samePin(pin, draft))) continue;
      const pin: StoredPin = { ...draft, id: `p${next++}`, createdAt: this.options.now() };
      if (pin.kind === 'text') pin.tokens = this.options.counter.count(renderPinEntry(pin));
      pins.push(pin);
      added.push(pin);
    }
    return { state: { ...state, next, pins, declared: [...state.declared, ...pending.map(({ key }) => key)] }, added };
  }

  /** A pin from `pin()`'s arguments, without id and time. */
  private draft(target: number | string, options: PinOptions): Omit<StoredPin, 'id' | 'createdAt'> {
    const { sessionId } = this.options;
    let label: string | undefined;
    if (options.label !== undefined) {
      if (typeof options.label !== 'string' || options.label.trim() === '')
        throw new PinTargetError(sessionId, 'a label must be a non-empty string');
      label = options.label.replace(/\s+/g, ' ').trim();
      if (label.length > MAX_LABEL_CHARS)
        throw new PinTargetError(
          sessionId,
          `a label has at most ${MAX_LABEL_CHARS} characters (this one has ${label.length})`,
        );
    }
    if (typeof target === 'number') {
      if (!Number.isSafeInteger(target) || target < 0)
        throw new PinTargetError(sessionId, `a message index must be a non-negative integer (got ${target})`);
      return { kind: 'message', messageIndex: target, label: label ?? `message ${target}`, text: '' };
    }
    if (typeof target !== 'string' || target.trim() === '')
      throw new PinTargetError(
        sessionId,
        `pin() takes a message index or a non-empty text ` +
          `(got ${typeof target === 'string' ? 'an empty text' : typeof target})`,
      );
    return { kind: 'text', text: target, label: label ?? 'note' };
  }

  private available(): number | undefined {
    return this.lastAvailable ?? this.options.availableBudget?.();
  }

  /**
   * Tokens of the block after the system prompt: what the share counts, wherever the block is sent (its preamble is not
   * the pins').
   */
  private blockTokens(block: string): number {
    if (this.counted?.block !== block)
      this.counted = { block, tokens: this.options.counter.count(`${PIN_BLOCK_SEPARATOR}${block}`) };
    return this.counted.tokens;
  }

  private assertShare(shown: readonly StoredPin[], tokens: number, available: number): void {
    const allowance = Math.floor(this.pinShare * available);
    if (tokens <= allowance) return;
    const { agentId, sessionId, strategyId, counter } = this.options;
    throw new PinBudgetExceededError({
      agentId,
      sessionId,
      strategyId,
      pinShare: this.pinShare,
      available,
      allowance,
      required: tokens,
      pins: shown.map((pin) => ({
        id: pin.id,
        label: pin.label,
        tokens: pin.tokens ?? counter.count(renderPinEntry(pin)),
      })),
    });
  }

  private emit(event: 'pin-added' | 'pin-removed', pin: StoredPin): void {
    const { agentId, sessionId, strategyId, events } = this.options;
    let turn = 0;
    for (const message of this.lastHistory) if ((message as { role?: unknown } | null)?.role === 'user') turn++;
    safeEmit(events, event, { agentId, sessionId, strategyId, turn, pin: publicPin(pin) });
  }
}

/** A declared pin as a draft (without id and time). */
function declaredDraft(declaration: DeclaredPin): Omit<StoredPin, 'id' | 'createdAt'> {
  const given = declaration.label?.replace(/\s+/g, ' ').trim() || undefined;
  if ('text' in declaration) return { kind: 'text', text: declaration.text, label: given ?? 'note' };
  if (declaration.message === 'first-user')
    return { kind: 'message', firstUser: true, label: given ?? 'first user message', text: '' };
  if (declaration.message === 'first')
    return { kind: 'message', messageIndex: 0, label: given ?? 'first message', text: '' };
  return {
    kind: 'message',
    messageIndex: declaration.message,
    label: given ?? `message ${declaration.message}`,
    text: '',
  };
}

/** True when `pin` already pins what `draft` would: the same text, or the same message index. */
function samePin(pin: StoredPin, draft: Omit<StoredPin, 'id' | 'createdAt'>): boolean {
  if (draft.kind === 'text') return pin.kind === 'text' && pin.text === draft.text;
  if (draft.firstUser) return pin.kind === 'message' && pin.firstUser === true;
  return pin.kind === 'message' && pin.firstUser !== true && pin.messageIndex === draft.messageIndex;
}

/** The index and message a pending message pin captures from `history`, if the history reaches it. */
function captureOf(
  pin: StoredPin,
  history: ReadonlyArray<ChatMessage>,
): { index: number; message: ChatMessage } | undefined {
  if (isCaptured(pin)) return undefined;
  const index = pin.firstUser
    ? history.findIndex((message) => (message as { role?: unknown } | null)?.role === 'user')
    : (pin.messageIndex ?? -1);
  if (index < 0 || index >= history.length) return undefined;
  const message = history[index]!;
  if (typeof message !== 'object' || message === null || !KNOWN_ROLES.has(message.role)) return undefined;
  return { index, message };
}

/** `state` with every pending message pin that `history` reaches captured, or `undefined` when none is. */
function capturedIn(
  state: PinsState,
  history: ReadonlyArray<ChatMessage>,
  counter: ITokenCounter,
): PinsState | undefined {
  let changed = false;
  const pins = state.pins.map((pin) => {
    const found = captureOf(pin, history);
    if (found === undefined) return pin;
    changed = true;
    const { firstUser: _firstUser, ...rest } = pin;
    const captured: StoredPin = {
      ...rest,
      messageIndex: found.index,
      role: found.message.role,
      text: pinnedMessageText(found.message),
      original: JSON.parse(JSON.stringify(found.message)) as ChatMessage,
    };
    captured.tokens = counter.count(renderPinEntry(captured));
    return captured;
  });
  return changed ? { ...state, pins } : undefined;
}

/** True for an assistant message that opens with a provider's compaction item (a provider compaction's result). */
function opensWithProviderCompaction(message: Readonly<ChatMessage> | undefined): boolean {
  return message?.role === 'assistant' && message.reasoning?.[0]?.data.type === 'compaction';
}
