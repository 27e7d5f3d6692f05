/**
 * `@ctxkit/core/testing/generators`: test data for strategy, adapter and store tests. Seeded
 * fast-check arbitraries of valid and hostile histories (tool-call groups, reused and prototype-key
 * call ids, Japanese and emoji text, huge and binary-looking outputs), and a seeded synthetic history
 * of any length for long-history tests and benchmarks. Needs the `fast-check` peer dependency.
 * Explicit named exports only.
 */

export {
  arbHistory,
  arbHostileHistory,
  arbText,
  arbToolCallId,
  arbToolDefinitions,
  arbToolExchange,
  arbToolOutput,
  arbTurn,
} from '../arbitraries';
export { generateCodingHistory } from '../coding-history';
export type { SyntheticHistoryOptions } from '../synthetic-history';
export { generateHistory, seededRandom, SYNTHETIC_TOOLS } from '../synthetic-history';
