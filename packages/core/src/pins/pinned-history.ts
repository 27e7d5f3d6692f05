import type { ChatMessage } from '../contracts/chat-message';
import { messageFingerprint } from '../ledger/history-ledger';
import { isPinStandIn, pinStandIn } from './pin-stand-in';
import { pinnedMessageText } from './pinned-message-text';
import type { StoredPin } from './pins-state';

/** A message pin whose message a payload has captured. */
export type CapturedMessagePin = StoredPin & { kind: 'message'; messageIndex: number; original: ChatMessage };

/** True for a message pin with its message captured. */
export function isCapturedMessagePin(pin: StoredPin): pin is CapturedMessagePin {
  return pin.kind === 'message' && pin.original !== undefined && pin.messageIndex !== undefined;
}

/**
 * The history a strategy sees when messages are pinned: each pinned message, where the host's
 * history still holds it (the same text at the same index), replaced by its stand-in. Stand-ins are
 * cached by message identity, so a history that only grows gives the strategy the same objects on
 * every call (its identity fast paths keep working). The caller's history is never changed; without a
 * pinned message in it, it is passed through as it is.
 */
export class PinnedHistory {
  private readonly standIns = new WeakMap<object, { pinId: string; standIn: ChatMessage }>();
  private readonly originals = new WeakMap<object, ChatMessage>();
  private last:
    | {
        source: ReadonlyArray<ChatMessage>;
        length: number;
        lastMessage: ChatMessage | undefined;
        key: string;
        result: ChatMessage[];
      }
    | undefined;

  /** `history` with every pinned message it still holds replaced by its stand-in (a copy), or `history` itself. */
  apply(history: ChatMessage[], pins: readonly CapturedMessagePin[]): ChatMessage[] {
    if (pins.length === 0) return history;
    const key = pins.map((pin) => `${pin.id}@${pin.messageIndex}`).join(',');
    const last = this.last;
    if (
      last &&
      last.source === history &&
      last.length === history.length &&
      last.lastMessage === history[history.length - 1] &&
      last.key === key
    )
      return last.result;
    let result: ChatMessage[] | undefined;
    for (const pin of pins) {
      if (pin.messageIndex >= history.length) continue;
      const standIn = this.standInFor(history[pin.messageIndex]!, pin);
      if (standIn === undefined) continue;
      result ??= history.slice();
      result[pin.messageIndex] = standIn;
    }
    if (result === undefined) return history;
    this.last = { source: history, length: history.length, lastMessage: history[history.length - 1], key, result };
    return result;
  }

  /**
   * Messages a strategy gave back (a compacted history, the history an undo restores) with every
   * stand-in replaced by the pinned message it stands for: the host never gets a stand-in.
   */
  restore(messages: ChatMessage[], pins: readonly CapturedMessagePin[]): ChatMessage[] {
    let result: ChatMessage[] | undefined;
    messages.forEach((message, index) => {
      if (typeof message !== 'object' || message === null) return;
      let original = this.originals.get(message);
      if (original === undefined) {
        const pin = pins.find(
          (candidate) => candidate.original.role === message.role && isPinStandIn(message, candidate.id),
        );
        if (pin !== undefined) original = structuredClone(pin.original);
      }
      if (original === undefined) return;
      result ??= messages.slice();
      result[index] = original;
    });
    return result ?? messages;
  }

  private standInFor(message: ChatMessage, pin: CapturedMessagePin): ChatMessage | undefined {
    if (typeof message !== 'object' || message === null) return undefined;
    const cached = this.standIns.get(message);
    if (cached !== undefined && cached.pinId === pin.id) return cached.standIn;
    if (!this.holds(message, pin)) return undefined;
    const standIn = pinStandIn(message, pin.id);
    this.standIns.set(message, { pinId: pin.id, standIn });
    this.originals.set(standIn, message);
    return standIn;
  }

  /**
   * The same message as the pinned one: same role, length and tool-call ids, and the same text. A message of another
   * shape never is.
   */
  private holds(message: ChatMessage, pin: CapturedMessagePin): boolean {
    try {
      return (
        messageFingerprint(message) === messageFingerprint(pin.original) && pinnedMessageText(message) === pin.text
      );
    } catch {
      return false; // not a readable message: the strategy reports its shape
    }
  }
}
