import type { ChatMessage } from '../contracts/chat-message';
import { groupToolCalls } from './group-tool-calls';

/** A reason a provider would reject a message list. */
export interface PayloadProblem {
  index: number;
  problem:
    | 'orphan-tool-result'
    | 'missing-tool-result'
    | 'leading-tool-message'
    | 'no-user-message'
    | 'system-not-first'
    | 'unknown-role';
  detail: string;
}

/**
 * Checks the provider-validity rules every strategy keeps: no tool message
 * without its call, no call without its results, no leading tool message, system messages only at
 * the start, at least one user message. Returns an empty list when valid.
 */
export function findPayloadProblems(messages: ReadonlyArray<Readonly<ChatMessage>>): PayloadProblem[] {
  const problems: PayloadProblem[] = [];
  let seenNonSystem = false;
  let seenUser = false;
  messages.forEach((message, index) => {
    const role = (message as { role?: unknown }).role;
    if (role !== 'system' && role !== 'user' && role !== 'assistant' && role !== 'tool') {
      problems.push({ index, problem: 'unknown-role', detail: `role ${JSON.stringify(role)}` });
    }
    if (role === 'system' && seenNonSystem) {
      problems.push({ index, problem: 'system-not-first', detail: 'system message after the conversation started' });
    }
    if (role !== 'system') seenNonSystem = true;
    if (role === 'user') seenUser = true;
  });
  const firstNonSystem = messages.findIndex((message) => message.role !== 'system');
  if (firstNonSystem !== -1 && messages[firstNonSystem]!.role === 'tool') {
    problems.push({
      index: firstNonSystem,
      problem: 'leading-tool-message',
      detail: 'the first conversation message is a tool result',
    });
  }
  for (const group of groupToolCalls(messages)) {
    if (group.kind === 'orphan-tool') {
      const message = messages[group.start] as { tool_call_id?: string };
      problems.push({
        index: group.start,
        problem: 'orphan-tool-result',
        detail: `tool_call_id ${message.tool_call_id ?? '(none)'} answers no call before it`,
      });
    } else if (group.kind === 'incomplete-tool-exchange') {
      problems.push({
        index: group.start,
        problem: 'missing-tool-result',
        detail: `no result for ${group.missingCallIds!.join(', ')}`,
      });
    }
  }
  if (!seenUser && messages.length > 0) {
    problems.push({ index: 0, problem: 'no-user-message', detail: 'the payload has no user message' });
  }
  return problems;
}
