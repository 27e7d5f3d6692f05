import { escapeMemoryText, memoryBlockText, memoryPreamble } from '../composer/memory-frame';
import type { Pin } from '../contracts/pin';

/** What joins the system prompt and the pinned block (when the block is sent in the system message). */
export const PIN_BLOCK_SEPARATOR = '\n\n';

/** The tag the pinned block is framed in. */
export const PIN_TAG = 'pinned';

/** What the pinned block says before its frame when it is sent in a user message. */
export const PIN_PREAMBLE = memoryPreamble('Messages and notes pinned in this conversation follow, kept verbatim.');

/** Tags a pin's label and text may not open or close: the block's frame. */
const PIN_FRAME_TAGS = [PIN_TAG];

/**
 * One pin's entry in the pinned block: `[pin <id> · <label>]` and its text on the next lines, escaped
 * so that it cannot close the block's frame or open a role (`<\/pinned`, `<\system>`).
 */
export function renderPinEntry(pin: Pick<Pin, 'id' | 'label' | 'text'>): string {
  return escapeMemoryText(`[pin ${pin.id} · ${pin.label}]\n${pin.text}`, PIN_FRAME_TAGS);
}

/**
 * The pinned block: every pin's entry, in the order the pins were added, between `<pinned>` and
 * `</pinned>`. The same pins give the same bytes.
 */
export function renderPinBlock(pins: ReadonlyArray<Pick<Pin, 'id' | 'label' | 'text'>>): string {
  return `<${PIN_TAG}>\n${pins.map(renderPinEntry).join('\n\n')}\n</${PIN_TAG}>`;
}

/** The pinned block as its own user message: the preamble saying it is a quoted record, then the block. */
export function pinMessageText(block: string): string {
  return memoryBlockText('user', PIN_PREAMBLE, block);
}
