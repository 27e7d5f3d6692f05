import { type ChatMessage, type ContentPart, CtxkitError, HistoryValidationError } from '@ctxkit/core';
import { fromResponsesOutput } from '@ctxkit/kernel';

type Item = Record<string, unknown>;

function partsOf(content: unknown): Item[] {
  return Array.isArray(content)
    ? content.filter((part): part is Item => typeof part === 'object' && part !== null)
    : [];
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  return partsOf(content)
    .filter((part) => typeof part.text === 'string')
    .map((part) => part.text as string)
    .join('');
}

function userContent(content: unknown): string | ContentPart[] {
  const parts = partsOf(content);
  if (!parts.some((part) => part.type === 'input_image')) return textOf(content);
  return parts.map((part): ContentPart =>
    part.type === 'input_image'
      ? { type: 'image_url', image_url: { url: String(part.image_url) } }
      : { type: 'text', text: String(part.text ?? '') },
  );
}

/**
 * OpenAI Responses input items → ctxkit messages: system and developer messages → system, user
 * messages → user, each `function_call_output` → a tool message; the items of one model step
 * (reasoning, the assistant message, its `function_call`s) → one assistant message, through the
 * kernel's converter of Responses output.
 * @throws HistoryValidationError (`CTXKIT_HISTORY_INVALID`) naming the item that is not one
 */
export function fromResponsesItems(items: readonly unknown[]): ChatMessage[] {
  const messages: ChatMessage[] = [];
  let step: Item[] = [];
  let stepStart = 0;
  const flush = (): void => {
    if (step.length === 0) return;
    try {
      messages.push(fromResponsesOutput(step));
    } catch (error) {
      const problem = CtxkitError.isInstance(error) ? error.details.problem : undefined;
      throw new HistoryValidationError(stepStart, typeof problem === 'string' ? problem : (error as Error).message);
    }
    step = [];
  };
  items.forEach((raw, index) => {
    if (typeof raw !== 'object' || raw === null) throw new HistoryValidationError(index, 'not an input item');
    const item = raw as Item;
    const type = item.type ?? (item.role !== undefined ? 'message' : undefined);
    if (typeof type !== 'string')
      throw new HistoryValidationError(index, 'an item needs a "type" (or a "role" for a message)');
    if (type === 'function_call_output') {
      flush();
      if (typeof item.call_id !== 'string')
        throw new HistoryValidationError(index, 'a function_call_output needs a string call_id');
      messages.push({ role: 'tool', tool_call_id: item.call_id, content: textOf(item.output) });
      return;
    }
    if (type === 'message' && item.role !== 'assistant') {
      flush();
      if (item.role === 'user') messages.push({ role: 'user', content: userContent(item.content) });
      else if (item.role === 'system' || item.role === 'developer')
        messages.push({ role: 'system', content: textOf(item.content) });
      else
        throw new HistoryValidationError(
          index,
          `role ${JSON.stringify(item.role)}; expected system, developer, user or assistant`,
        );
      return;
    }
    // An assistant message after this step's message or calls starts the next step.
    if (type === 'message' && step.some((earlier) => earlier.type === 'message' || earlier.type === 'function_call'))
      flush();
    if (step.length === 0) stepStart = index;
    step.push(
      type === 'message'
        ? { type, role: 'assistant', content: [{ type: 'output_text', text: textOf(item.content) }] }
        : item,
    );
  });
  flush();
  return messages;
}
