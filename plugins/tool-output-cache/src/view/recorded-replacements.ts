import type { LoggedRecord, ReductionLog } from './reduction-log';
import {
  MICRO_COMPACTED_TO_FIT_REASON,
  recordReplacements,
  type Replacement,
  TRIMMED_TO_FIT_REASON,
} from './relieve-pressure';

/**
 * Records the outputs replaced under pressure in a payload's log (as `recordReplacements` does), from
 * call to call: when a call's replacements start with every replacement of the last call (the same
 * objects, in the same order, as `WorkingView.relieveAll` reuses them), the records made of those are
 * copied in, and only the new ones are recorded one by one. The records are the same as recording
 * every replacement again.
 */
export class RecordedReplacements {
  private last: { replacements: ReadonlyArray<Replacement>; records: LoggedRecord[] } | undefined;

  /** Records `replacements` (in index order) in `log`. */
  record(replacements: ReadonlyArray<Replacement>, log: ReductionLog): void {
    // Recorded one by one, a replacement would merge with a record of its kind the log ends with: then nothing is
    // reused or kept.
    const newest = log.newest;
    if (
      newest !== undefined &&
      (newest.reason === TRIMMED_TO_FIT_REASON || newest.reason === MICRO_COMPACTED_TO_FIT_REASON)
    ) {
      this.last = undefined;
      recordReplacements(replacements, log);
      return;
    }
    const start = log.size;
    const last = this.last;
    if (last !== undefined && startsWith(replacements, last.replacements)) {
      log.append(last.records);
      recordReplacements(replacements.slice(last.replacements.length), log);
    } else recordReplacements(replacements, log);
    this.last = { replacements, records: log.copies(start) };
  }
}

/** True when `list` starts with every element of `head`, the same objects in the same order. */
function startsWith(list: ReadonlyArray<Replacement>, head: ReadonlyArray<Replacement>): boolean {
  if (head.length > list.length) return false;
  for (let index = 0; index < head.length; index++) if (list[index] !== head[index]) return false;
  return true;
}
