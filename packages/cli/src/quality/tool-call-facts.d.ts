import type { TranscriptRecord } from '../lab/transcript-record';
import type { NeededFact } from './needed-fact';
/**
 * Facts of a coding agent's run, derived from its own tool calls (no annotation exists): for each
 * assistant tool call, what its arguments name that the agent could only have learnt from an
 * earlier tool output. The fact is needed in the payload composed just before that assistant
 * message, and matched verbatim.
 *
 * - file paths: for each path token of the arguments, the longest trailing part (whole segments)
 *   that occurs in an earlier tool output, e.g. `parser.c` for `/workspace/repo/src/ast/parser.c`
 *   after an `ls` listed `parser.c`;
 * - line numbers: `view_range` and `insert_line` values, and `line <n>` / `:<n>` in argument
 *   strings; the answer is the earlier tool-output line that shows that number as a line number
 *   (`cat -n` view `  <n>\t…`, `grep -n` `<n>:…`, compiler `file:<n>:…`), trimmed;
 * - error strings: lines of argument strings that read like an error (error, failed, not found,
 *   ...), trimmed of quotes.
 *
 * Each candidate counts only when the first message holding it is a tool output before the call:
 * not the system prompt, not the task message, not something the agent wrote first. At most one
 * fact per answer per call.
 */
export declare function toolCallFacts(record: TranscriptRecord): NeededFact[];
//# sourceMappingURL=tool-call-facts.d.ts.map