import { type ChatMessage, type ToolMessage } from '@ctxkit/core';
import { groupToolCalls } from '@ctxkit/core/strategy-kit';

/** One tool-call id rewritten by {@link makeToolCallIdsUnique}. */
export interface ToolCallIdRename {
  /** Index of the assistant message whose call was renamed. */
  messageIndex: number;
  from: string;
  to: string;
}

/** Result of {@link makeToolCallIdsUnique}: new messages (the input is never mutated) and the renames. */
export interface UniqueToolCallIds {
  messages: ChatMessage[];
  renamed: ToolCallIdRename[];
}

const SAFE_ID = /[^a-zA-Z0-9_-]/g;

/**
 * Rewrites tool-call ids so that each is unique in the conversation and matches
 * `^[a-zA-Z0-9_-]+$` (Anthropic `tool_use` ids, Responses `call_id`s). Real conversations reuse
 * ids (tau-bench uses `call_HGn16KZh9oNCruxsMJ4gYXan` for two different calls), so pairing by id
 * alone is wrong: results are paired to calls *by position* (core's `groupToolCalls`) and each
 * result gets the same new id as its call. Ids already unique and safe are kept as they are.
 *
 * Pure: returns new message objects only where something changed.
 */
export function makeToolCallIdsUnique(messages: ReadonlyArray<Readonly<ChatMessage>>): UniqueToolCallIds {
  const out: ChatMessage[] = messages.slice() as ChatMessage[];
  const renamed: ToolCallIdRename[] = [];
  const used = new Set<string>();
  const unique = (wanted: string): string => {
    const base = (wanted.replace(SAFE_ID, '_') || 'call').slice(0, 200);
    let candidate = base;
    for (let n = 2; used.has(candidate); n++) candidate = `${base}_${n}`;
    used.add(candidate);
    return candidate;
  };

  for (const group of groupToolCalls(messages)) {
    const owner = messages[group.start]!;
    if (owner.role !== 'assistant' || !owner.tool_calls || owner.tool_calls.length === 0) {
      // A tool message outside any exchange (an orphan) keeps its id: validation reports it.
      continue;
    }
    const mapping: Array<{ from: string; to: string }> = [];
    const calls = owner.tool_calls.map((call) => {
      const to = unique(call.id);
      mapping.push({ from: call.id, to });
      if (to === call.id) return call;
      renamed.push({ messageIndex: group.start, from: call.id, to });
      return { ...call, id: to };
    });
    if (calls.some((call, i) => call !== owner.tool_calls![i])) out[group.start] = { ...owner, tool_calls: calls };
    // Results pair with the first still-unanswered call of the same id, as groupAt pairs them.
    const pending = mapping.slice();
    for (let index = group.start + 1; index < group.end; index++) {
      const result = messages[index] as ToolMessage;
      const at = pending.findIndex((entry) => entry.from === result.tool_call_id);
      if (at === -1) continue;
      const entry = pending.splice(at, 1)[0]!;
      if (entry.to !== result.tool_call_id) out[index] = { ...result, tool_call_id: entry.to };
    }
  }
  return { messages: out, renamed };
}
