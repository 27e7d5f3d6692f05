import type { AgentInputItem, FunctionCallItem, FunctionCallResultItem } from '@openai/agents';

/** A message item of the Agents SDK (`type` absent or `"message"`, with a role). */
export type MessageItem = Extract<AgentInputItem, { role: string }>;

/** The kind of an input item as the conversion sees it. */
export type ItemKind =
  'user' | 'system' | 'assistant' | 'function_call' | 'function_call_result' | 'reasoning' | 'compaction' | 'carried';

/** The kind of `item`, or a description of what is wrong with it. */
export function itemKind(item: unknown): ItemKind | { problem: string } {
  if (item === null || typeof item !== 'object' || Array.isArray(item)) return { problem: 'not an item object' };
  const record = item as Record<string, unknown>;
  if (record.type === undefined || record.type === 'message') {
    if (record.role === 'user' || record.role === 'system' || record.role === 'assistant') return record.role;
    return { problem: `a message with the unknown role ${JSON.stringify(record.role)}` };
  }
  if (typeof record.type !== 'string') return { problem: 'its type is not a string' };
  if (record.type === 'function_call' || record.type === 'function_call_result') {
    if (typeof record.callId !== 'string') return { problem: `a ${record.type} without a string callId` };
    if (typeof record.name !== 'string') return { problem: `a ${record.type} without a string name` };
    if (record.type === 'function_call' && typeof record.arguments !== 'string')
      return { problem: 'a function_call whose arguments are not a string' };
    return record.type;
  }
  if (record.type === 'reasoning') return 'reasoning';
  if (record.type === 'compaction') return 'compaction';
  return 'carried';
}

/** Narrows an item of kind `function_call`. */
export function asFunctionCall(item: AgentInputItem): FunctionCallItem {
  return item as FunctionCallItem;
}

/** Narrows an item of kind `function_call_result`. */
export function asFunctionCallResult(item: AgentInputItem): FunctionCallResultItem {
  return item as FunctionCallResultItem;
}
