import type { AssistantMessage, ChatMessage } from '../contracts/chat-message';
import { contentText } from '../token-counting/message-text';
import type { ConversationRecord } from './conversation-record';
import { loadConversations } from './load-conversations';

/** A bundled conversation replayed through a framework's own loop, at a ceiling. */
export interface AdapterReplay {
  record: ConversationRecord;
  ceiling: number;
}

/** One turn of a recorded conversation: the user's message and the assistant messages that answered it, in order. */
export interface RecordedTurn {
  user: string;
  replies: AssistantMessage[];
}

/**
 * The conversations an adapter's replay test drives through its framework: tau-bench airline records
 * 20 to 34 at 4,000 tokens (task-33/trial-0 among them, where a placeholder once made a session store
 * items twice) and the OpenHands runs at 8,000 (their system prompt and tools alone take about 3,300);
 * `full: false` keeps records 32 to 34 and one run.
 */
export function adapterReplays(full: boolean): AdapterReplay[] {
  const tau = loadConversations('tau-bench-airline').slice(full ? 20 : 32, 35);
  const openhands = loadConversations('openhands-multi-swe-bench').slice(0, full ? 3 : 1);
  return [
    ...tau.map((record) => ({ record, ceiling: 4000 })),
    ...openhands.map((record) => ({ record, ceiling: 8000 })),
  ];
}

/**
 * The standard strategies with what a replay of the bundled conversations needs of each (entity
 * extraction its state schema), as `[pluginId, config]`.
 */
export function standardStrategyConfigs(
  stateSchema: Record<string, unknown>,
): Array<[string, Record<string, unknown>]> {
  return [
    ['std-sliding-window-strategy', {}],
    ['std-summarization-strategy', {}],
    ['std-entity-extraction-strategy', { stateSchema }],
    ['std-tool-output-cache-strategy', {}],
    ['std-recall-strategy', {}],
  ];
}

/** A recorded history's turns: each user message with the assistant messages after it (copies). */
export function recordedTurns(history: readonly ChatMessage[]): RecordedTurn[] {
  const turns: RecordedTurn[] = [];
  for (const message of history) {
    if (message.role === 'user') turns.push({ user: contentText(message.content), replies: [] });
    else if (message.role === 'assistant') turns.at(-1)?.replies.push(structuredClone(message));
  }
  return turns;
}

/**
 * What a provider would refuse in `messages` for pairing: a call whose result does not follow it
 * before the next user or assistant message, a result with no call before it.
 */
export function unpairedCalls(messages: readonly ChatMessage[]): string[] {
  const problems: string[] = [];
  const open = new Set<string>();
  const seen = new Set<string>();
  const close = () => {
    for (const id of open) problems.push(`call ${id} has no result`);
    open.clear();
  };
  for (const message of messages) {
    if (message.role === 'assistant') {
      close();
      for (const call of message.tool_calls ?? []) {
        open.add(call.id);
        seen.add(call.id);
      }
    } else if (message.role === 'tool') {
      if (!seen.has(message.tool_call_id)) problems.push(`result ${message.tool_call_id} has no call before it`);
      open.delete(message.tool_call_id);
    } else close();
  }
  close();
  return problems;
}

/**
 * A record's tool outputs, in call order, by tool name, and the names of the tools it called: what
 * a replay's tools answer with. Recordings reuse call ids across turns, so a result belongs to the
 * latest call with its id.
 */
export function recordedToolOutputs(record: ConversationRecord): {
  outputs: Map<string, string[]>;
  called: Set<string>;
} {
  const outputs = new Map<string, string[]>();
  const names = new Map<string, string>();
  const called = new Set<string>();
  for (const message of record.history) {
    if (message.role === 'assistant') {
      for (const call of message.tool_calls ?? []) {
        names.set(call.id, call.function.name);
        called.add(call.function.name);
      }
    }
    if (message.role === 'tool') {
      const name = names.get(message.tool_call_id) ?? '';
      outputs.set(name, [...(outputs.get(name) ?? []), contentText(message.content)]);
    }
  }
  return { outputs, called };
}
