import type { Pin } from '../contracts/pin';

/** What joins the system prompt and the pinned block. */
export const PIN_BLOCK_SEPARATOR = '\n\n';

/** One pin's entry in the pinned block: `[pin <id> · <label>]` and its text on the next lines. */
export function renderPinEntry(pin: Pick<Pin, 'id' | 'label' | 'text'>): string {
  return `[pin ${pin.id} · ${pin.label}]\n${pin.text}`;
}

/**
 * The pinned block, placed right after the system prompt: every pin's entry, in the order the pins
 * were added, between `<pinned>` and `</pinned>`. The same pins give the same bytes.
 */
export function renderPinBlock(pins: ReadonlyArray<Pick<Pin, 'id' | 'label' | 'text'>>): string {
  return `<pinned>\n${pins.map(renderPinEntry).join('\n\n')}\n</pinned>`;
}
