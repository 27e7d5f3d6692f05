import { CtxkitError } from './ctxkit-error';
import { ErrorCodes } from './error-codes';

/** One part of the context a compaction cannot remove, with its size. */
export interface UnremovablePart {
  /** What it is (the kept last turns, the system prompt and tools, the summary written). */
  part: string;
  tokens: number;
  /** Messages it holds, when it is history. */
  messages?: number;
}

/** Why a compaction cannot reach its target. */
export interface CompactionShortfall {
  /** The token count the compaction has to bring the context under. */
  thresholdTokens: number;
  /** What the compaction keeps whatever it summarizes. */
  parts: UnremovablePart[];
  /** Tokens the history must grow by before the next automatic attempt. */
  retryAfterTokens: number;
}

/**
 * A compaction cannot bring the context under its threshold: what it must keep (the last turns kept
 * verbatim, the system prompt and tool definitions, the summary it wrote) takes that much already.
 * Reported, never thrown by `composePayload` (the payload is still fitted to the budget); automatic
 * compaction backs off instead of running again at every turn, and the `compact` tool still works.
 */
export class CompactionNoProgressError extends CtxkitError {
  readonly shortfall: CompactionShortfall;
  constructor(strategyId: string, shortfall: CompactionShortfall) {
    const kept = shortfall.parts.reduce((total, part) => total + part.tokens, 0);
    const parts = shortfall.parts.map(
      (part) =>
        `${part.part}: ` +
        `${part.messages === undefined ? '' : `${part.messages} message${part.messages === 1 ? '' : 's'}, `}` +
        `${part.tokens} tokens`,
    );
    super({
      code: ErrorCodes.COMPACTION_NO_PROGRESS,
      category: 'user',
      message:
        `${strategyId}: compaction cannot bring the context under its threshold ` +
        `of ${shortfall.thresholdTokens} tokens: what it cannot remove takes ${kept} (${parts.join('; ')}). ` +
        `Automatic compaction waits until the history has grown by ${shortfall.retryAfterTokens} tokens before ` +
        `it tries again.`,
      fix:
        'Keep fewer turns verbatim (compaction.retainLastTurns), ask for a shorter summary ' +
        '(compaction.maxSummaryTokens), raise compaction.thresholdRatio, or shorten the system prompt and tool ' +
        'definitions; the compact tool still compacts on request.',
      details: { strategyId, ...shortfall, keptTokens: kept },
    });
    this.shortfall = shortfall;
  }
}
