import type { ChatMessage } from '@ctxkit/core';
import { contentText } from '@ctxkit/core/strategy-kit';
import { type ConversationRecord, loadConversations } from '@ctxkit/core/testing';

/** The bundled tau-bench record the telemetry tests replay: 11 user turns, 30 assistant messages (model calls). */
export const REPLAY_RECORD_ID = 'tau-bench/airline/gpt-4o/task-3/trial-0';

/** One recorded assistant message, as a scripted model answers it (tool-call ids made unique across the replay). */
export interface RecordedReply {
  text: string;
  calls: Array<{ id: string; name: string; arguments: string }>;
}

/** A recorded turn: the user's message and the model's answers to it, one per model call. */
export interface RecordedTurn {
  user: string;
  replies: RecordedReply[];
}

/**
 * A bundled tau-bench airline record (by default {@link REPLAY_RECORD_ID}) and its turns. The
 * recordings reuse call ids across turns, which frameworks would merge: each call gets a fresh one.
 */
export function replayRecord(id: string = REPLAY_RECORD_ID): { record: ConversationRecord; turns: RecordedTurn[] } {
  const record = loadConversations('tau-bench-airline').find((candidate) => candidate.id === id);
  if (record === undefined) throw new Error(`${id} is not in the bundled tau-bench records`);
  const turns: RecordedTurn[] = [];
  let calls = 0;
  for (const message of record.history) {
    if (message.role === 'user') turns.push({ user: contentText(message.content), replies: [] });
    else if (message.role === 'assistant') {
      turns.at(-1)?.replies.push({
        text: contentText(message.content ?? null),
        calls: (message.tool_calls ?? []).map((call) => ({
          id: `${call.id}-${++calls}`,
          name: call.function.name,
          arguments: call.function.arguments,
        })),
      });
    }
  }
  return { record, turns };
}

/** Each tool's recorded outputs, in call order (paired with their calls by id). */
export function recordedOutputs(history: readonly ChatMessage[]): Map<string, string[]> {
  const names = new Map<string, string>();
  const outputs = new Map<string, string[]>();
  for (const message of history) {
    if (message.role === 'assistant') {
      for (const call of message.tool_calls ?? []) {
        names.set(call.id, call.function.name);
        if (!outputs.has(call.function.name)) outputs.set(call.function.name, []);
      }
    } else if (message.role === 'tool') {
      outputs.get(names.get(message.tool_call_id) ?? '')?.push(contentText(message.content));
    }
  }
  return outputs;
}
