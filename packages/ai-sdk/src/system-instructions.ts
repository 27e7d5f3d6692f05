import type { Instructions, SystemModelMessage } from 'ai';

/** The system messages of AI SDK `instructions` (a string, one system message, or several). */
export function systemMessagesOf(instructions: Instructions | undefined): SystemModelMessage[] {
  if (instructions === undefined || instructions === null) return [];
  if (typeof instructions === 'string') return [{ role: 'system', content: instructions }];
  return Array.isArray(instructions) ? [...instructions] : [instructions as SystemModelMessage];
}

/** The system prompt ctxkit composes with: the system messages' texts, joined by a blank line. */
export function systemPromptOf(messages: ReadonlyArray<{ content: string }>): string {
  return messages.map((message) => message.content).join('\n\n');
}
