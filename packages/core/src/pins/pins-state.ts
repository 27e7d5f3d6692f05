import type { ChatMessage } from '../contracts/chat-message';
import type { Pin } from '../contracts/pin';

/** A pin as the session's store keeps it: the public fields plus what the session layer needs. */
export interface StoredPin extends Pin {
  /** A declared `first-user` pin whose message is not known yet: it takes the first user message the session sees. */
  firstUser?: boolean;
  /** The pinned message as it was captured (restores it where a stand-in comes back to the host). */
  original?: ChatMessage;
}

/** The session's pins as stored (kind `state`, name `pins`). */
export interface PinsState {
  format: 1;
  /** Number of the next pin id (`p<next>`). */
  next: number;
  /**
   * The manifest declarations already applied to this session (each as its JSON text), so that each is applied once.
   */
  declared: string[];
  pins: StoredPin[];
}

/** The state of a session without pins. */
export function emptyPinsState(): PinsState {
  return { format: 1, next: 1, declared: [], pins: [] };
}

/** A stored value read back as a pins state (anything unreadable counts as no pins). */
export function toPinsState(value: unknown): PinsState {
  const state = value as Partial<PinsState> | undefined;
  if (state?.format !== 1 || !Array.isArray(state.pins) || !Number.isInteger(state.next)) return emptyPinsState();
  return {
    format: 1,
    next: state.next!,
    declared: Array.isArray(state.declared)
      ? state.declared.filter((key): key is string => typeof key === 'string')
      : [],
    pins: state.pins.filter(
      (pin) =>
        typeof pin?.id === 'string' && (pin.kind === 'message' || pin.kind === 'text') && typeof pin.text === 'string',
    ),
  };
}

/** True once the pin's text is known: a text pin, or a message pin a payload has captured. */
export function isCaptured(pin: StoredPin): boolean {
  return pin.kind === 'text' || pin.original !== undefined;
}

/** The pin as the session's API shows it. */
export function publicPin(pin: StoredPin): Pin {
  const shown: Pin = { id: pin.id, label: pin.label, kind: pin.kind, text: pin.text, createdAt: pin.createdAt };
  if (pin.messageIndex !== undefined) shown.messageIndex = pin.messageIndex;
  if (pin.role !== undefined) shown.role = pin.role;
  if (pin.tokens !== undefined) shown.tokens = pin.tokens;
  return shown;
}
