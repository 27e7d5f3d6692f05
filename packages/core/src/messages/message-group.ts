/**
 * How a history splits into atomic units. A unit is kept or dropped whole: an assistant message
 * with `tool_calls` and all its `tool` results form one unit.
 */
export type MessageGroupKind =
  /** An assistant message with tool_calls and a result for every call, right after it. */
  | 'tool-exchange'
  /** An assistant message with tool_calls of which some have no result (a dangling call). */
  | 'incomplete-tool-exchange'
  /** A tool message that answers no call of the assistant message before its group. */
  | 'orphan-tool'
  | 'user'
  | 'assistant'
  | 'system';

/** A contiguous range `[start, end)` of history indexes forming one unit. */
export interface MessageGroup {
  start: number;
  end: number;
  kind: MessageGroupKind;
  /** For incomplete exchanges: the call ids that have no result. */
  missingCallIds?: string[];
}
