import type { RecoverySource, ReductionAction } from '../contracts/llm-payload';

/**
 * A strategy's memory (a running summary, an entity state, pinned content) as one block of the
 * payload. The composer gives it up to its share of the room, adds the newest history that fits
 * beside it, and shortens or leaves out the block before it would take the newest user message's room.
 */
export interface MemoryBlock {
  /** Names the block in reductions and stats (`summary`, `entity state`). */
  name: string;
  /** The block's whole text; it is sent as one message (see `role`). */
  content: string;
  /**
   * The role of the block's message. `user` for text the system prompt's author did not write (a
   * summary, an entity state, recalled turns): framed as a quoted record in the conversation, never
   * as instructions (see `escapeMemoryText` and `memoryPreamble`). Every standard strategy sets it
   * from its `memoryRole` config, `user` unless told otherwise. System-role blocks are sent before
   * every user-role block, whatever their placement.
   * @default 'system'
   */
  role?: 'system' | 'user';
  /**
   * The tokens of the block's message sent whole, by the composer's counter, when the strategy knows
   * them exactly without the text being counted again (recall sums cached counts of its lines, which
   * add up exactly). Without it the composer counts the text. A wrong value lets a payload exceed
   * its budget: give it only when it is exact.
   */
  tokens?: number;
  /**
   * `after-system`: right after the system prompt, before the dynamic context (a running summary).
   * `before-history`: after the dynamic context, right before the recent history (a state block).
   * `before-newest-user`: inside the recent history, right before the newest user message it keeps
   * (before the history when that message opens it): a block that changes with each question (recalled
   * turns) then leaves the history before the question in the provider's cached prefix.
   * A user-role block goes after every system message (the dynamic context included): `after-system`
   * then puts it before the `before-history` user-role blocks. A system-role block is sent before the
   * history whatever its placement.
   * @default 'before-history'
   */
  placement?: 'after-system' | 'before-history' | 'before-newest-user';
  /**
   * A smaller rendering of the block within `maxTokens` (the strategy knows its structure: drop its
   * least useful lines first). Return undefined when nothing useful fits. Without it the composer
   * keeps the head of the text and marks the cut.
   */
  shrink?(maxTokens: number): string | undefined;
  /**
   * The history range `[0, until)` the block stands for. History older than the window inside that
   * range is reported with this action and source (instead of `dropped` / `history`) while the block
   * is sent.
   */
  covers?: { until: number; action: ReductionAction; recoverableFrom: RecoverySource; reason: string; refs?: string[] };
  /**
   * History ranges the block sends again in its own form (recalled turns): older than the window,
   * they are reported as `recalled` instead of `dropped` while the block is sent whole.
   */
  recalls?: ReadonlyArray<{ from: number; to: number; reason: string }>;
  /**
   * The block retells, in its own words, the history it covers (a running summary): with recall on,
   * recalled turns of that history may take its room when they bear more on the newest user message
   * than its lines do. Leave unset for exact values a recalled turn may not carry (an entity state).
   * @default false
   */
  yieldsToRecall?: boolean;
  /**
   * Leave the block out when the window keeps every message it covers (it would only repeat them).
   * @default false
   */
  omitWhenWindowCovers?: boolean;
  /**
   * With `cutBackRatio` below 1: whether the composer may send `earlier` (this block as the previous
   * payload sent it) in this block's place. The composer does so while every message after what
   * `earlier` covers (`covers.until`) is still sent whole: the newer values are then in the window
   * verbatim, and an update no longer changes the payload's start (the provider's prompt cache keeps
   * serving it). The next cut of the window sends this block. Answer true only when this block grew
   * from `earlier` (newer messages read), not when it was rewritten (an undo). Without it, or
   * without `covers`, the block is always sent as it is. Held blocks are named in `stats.extra.heldMemory`.
   */
  holds?(earlier: MemoryBlock): boolean;
}

/** What became of one memory block in a composed payload. */
export type MemoryBlockOutcome =
  /** Sent whole. */
  | 'sent'
  /** Sent, shortened to fit its share or to leave room for the newest user message (reported). */
  | 'shortened'
  /** Left out: no room beside the newest user message (reported). */
  | 'left-out'
  /** Left out because the window already holds everything it covers. */
  | 'redundant'
  /** Empty content: nothing to send. */
  | 'empty';
