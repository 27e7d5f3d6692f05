import type { ChatMessage, ToolMessage } from '../contracts/chat-message';
import { contentDigest } from '../token-counting/content-digest';
import { contentText } from '../token-counting/message-text';

/** A current-turn tool output as a payload sent it: the truncated copy and its tokens. */
export interface OutputCut {
  message: ChatMessage;
  tokens: number;
}

/**
 * The current turn's output cuts of the previous payload, held so that the payload's start stays
 * byte-identical while the turn grows (a provider's prompt cache keeps serving it). While they fit,
 * the held copies are sent again and the new outputs share what is left, as long as each gets at
 * least an even share of the outputs' room; otherwise every output is cut anew within `ratio` of
 * that room, which leaves the rest for the next steps.
 *
 * Found by message identity, or by call id and content digest when the history was rebuilt
 * (deserialized) since.
 */
export class HeldOutputCuts {
  private digests: Map<string, OutputCut> | undefined;

  /**
   * @param ratio share of the outputs' room a fresh cut fills (the cut-back ratio), in (0, 1]
   * @param cuts by original tool message
   */
  constructor(
    readonly ratio: number,
    readonly cuts: ReadonlyMap<ChatMessage, OutputCut>,
  ) {}

  /** The held cut of `message`, if it was cut in the previous payload. */
  cutOf(message: Readonly<ChatMessage>): OutputCut | undefined {
    if (this.cuts.size === 0 || message.role !== 'tool') return undefined;
    const cut = this.cuts.get(message as ChatMessage);
    if (cut !== undefined) return cut;
    this.digests ??= new Map([...this.cuts].map(([original, held]) => [outputKey(original as ToolMessage), held]));
    return this.digests.get(outputKey(message));
  }
}

function outputKey(message: Readonly<ToolMessage>): string {
  return `${message.tool_call_id}:${contentDigest(contentText(message.content))}`;
}
