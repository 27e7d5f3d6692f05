import type { ChatMessage, ITokenCounter, ToolDefinition } from '@ctxkit/core';
import { messageText } from '@ctxkit/core/strategy-kit';

import type { CalibrationObservation, CountCalibration } from './count-calibration';

/** A payload as sent to the provider: its messages (system prompt first) and tool definitions. */
export interface CountedPayload {
  messages: ReadonlyArray<Readonly<ChatMessage>>;
  tools?: ReadonlyArray<Readonly<ToolDefinition>>;
}

/** The size of a payload and how it was reached. */
export interface AnchoredCount {
  /** The best estimate of the provider's count. */
  tokens: number;
  /** ctxkit's own count of the whole payload. */
  rawTokens: number;
  /**
   * Messages of the payload whose size the provider already reported (the previous payload was a
   * prefix of this one); 0 when the estimate is the calibrated count of the whole payload.
   */
  anchoredMessages: number;
}

interface Anchor {
  messages: ReadonlyArray<Readonly<ChatMessage>>;
  toolsText: string;
  reportedTokens: number;
}

function sameMessage(a: Readonly<ChatMessage>, b: Readonly<ChatMessage>): boolean {
  if (a === b) return true;
  if (a.role !== b.role || messageText(a) !== messageText(b)) return false;
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * Payload sizes anchored on the provider's last report. When the provider said how many input
 * tokens the previous payload had and the new payload extends it (same system prompt, tools and
 * messages, then new ones), the new size is that report plus the calibrated count of the new
 * messages: exact for the unchanged prefix. Otherwise it is the calibrated count of the whole payload.
 * Every report also teaches the calibration.
 */
export class UsageAnchoredCount {
  private anchor: Anchor | undefined;

  constructor(
    private readonly counter: ITokenCounter,
    private readonly calibration: CountCalibration,
  ) {}

  /** ctxkit's own count of a payload. */
  rawCount(payload: CountedPayload): number {
    return (
      this.counter.countMessages(payload.messages) +
      (payload.tools && payload.tools.length > 0 ? this.counter.countTools(payload.tools) : 0)
    );
  }

  /** The estimated provider count of a payload (see the class). */
  count(payload: CountedPayload): AnchoredCount {
    const rawTokens = this.rawCount(payload);
    const anchored = this.anchoredPrefix(payload);
    if (anchored === 0 || this.anchor === undefined)
      return { tokens: this.calibration.calibrate(rawTokens), rawTokens, anchoredMessages: 0 };
    const suffix = this.counter.countMessages(payload.messages.slice(anchored));
    return {
      tokens: this.anchor.reportedTokens + this.calibration.calibrate(suffix),
      rawTokens,
      anchoredMessages: anchored,
    };
  }

  /**
   * Records the provider's reported input tokens for a payload just sent: the calibration learns
   * from it and the payload becomes the anchor of the next count. Returns what was learned, or
   * `undefined` when the report was unusable (zero, negative, not a number); a report the calibration
   * ignored (see `CalibrationObservation.ignored`) anchors nothing either.
   */
  record(payload: CountedPayload, reportedTokens: number): CalibrationObservation | undefined {
    const observation = this.calibration.observe(this.rawCount(payload), reportedTokens);
    this.anchor =
      observation === undefined || observation.ignored
        ? undefined
        : { messages: payload.messages.slice(), toolsText: JSON.stringify(payload.tools ?? []), reportedTokens };
    return observation;
  }

  /** Forgets the anchor (a new conversation, a changed model). The calibration stays. */
  reset(): void {
    this.anchor = undefined;
  }

  private anchoredPrefix(payload: CountedPayload): number {
    const anchor = this.anchor;
    if (anchor === undefined || anchor.messages.length === 0 || anchor.messages.length > payload.messages.length)
      return 0;
    if (JSON.stringify(payload.tools ?? []) !== anchor.toolsText) return 0;
    for (let i = 0; i < anchor.messages.length; i++)
      if (!sameMessage(anchor.messages[i]!, payload.messages[i]!)) return 0;
    return anchor.messages.length;
  }
}
