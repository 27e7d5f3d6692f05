import { type AssistantMessage, type ChatMessage, type ToolMessage, type UserMessage } from '@ctxkit/core';
import { contentText } from '@ctxkit/core/strategy-kit';
import type { ModelMessage, ToolModelMessage } from 'ai';

import type { AssistantPart, LanguageModelPrompt, ToolPart, UserPart } from './ai-sdk-types';
import { partOfImageUrl } from './file-data';
import { keptOptionsOf, keptPartOf } from './kept-assistant-part';
import { type MessageOrigin, originOf } from './message-origin';

/**
 * The shape to write: `messages` for `ModelMessage[]` (plain text may stay a string), `prompt`
 * for a provider-level prompt (every user and assistant content a part array).
 */
export type ModelMessageForm = 'messages' | 'prompt';

/** The input of a tool-call part from ctxkit's JSON arguments (the raw text when it is not JSON). */
function inputOf(args: string): unknown {
  if (args === '') return undefined;
  try {
    return JSON.parse(args) as unknown;
  } catch {
    return args;
  }
}

function userMessage(message: Readonly<UserMessage>, form: ModelMessageForm): ModelMessage {
  if (typeof message.content === 'string') {
    return form === 'messages'
      ? { role: 'user', content: message.content }
      : { role: 'user', content: [{ type: 'text', text: message.content }] };
  }
  const content: UserPart[] = message.content.map((part) =>
    part.type === 'text'
      ? { type: 'text', text: part.text }
      : partOfImageUrl(part.image_url.url, part.image_url.detail),
  );
  return { role: 'user', content };
}

function assistantMessage(message: Readonly<AssistantMessage>, form: ModelMessageForm): ModelMessage {
  const text = message.content === null || message.content === undefined ? null : contentText(message.content);
  const calls = message.tool_calls ?? [];
  const kept = (message.reasoning ?? [])
    .map((item) => keptPartOf(item))
    .filter((entry): entry is NonNullable<typeof entry> => entry !== undefined)
    .sort((a, b) => a.index - b.index);
  const options = (message.reasoning ?? [])
    .map((item) => keptOptionsOf(item))
    .filter((entry): entry is NonNullable<typeof entry> => entry !== undefined);
  const textOptions = options.find((entry) => entry.toolCallId === undefined)?.providerOptions;
  const callOptions = new Map(
    options
      .filter((entry) => entry.toolCallId !== undefined)
      .map((entry) => [entry.toolCallId!, entry.providerOptions]),
  );
  if (form === 'messages' && text !== null && calls.length === 0 && kept.length === 0 && textOptions === undefined)
    return { role: 'assistant', content: text };
  const canonical: AssistantPart[] = [];
  if (text !== null)
    canonical.push(
      textOptions === undefined
        ? { type: 'text', text }
        : ({ type: 'text', text, providerOptions: structuredClone(textOptions) } as AssistantPart),
    );
  for (const call of calls) {
    const part = {
      type: 'tool-call' as const,
      toolCallId: call.id,
      toolName: call.function.name,
      input: inputOf(call.function.arguments),
    };
    const given = callOptions.get(call.id);
    canonical.push(
      given === undefined ? part : ({ ...part, providerOptions: structuredClone(given) } as AssistantPart),
    );
  }
  // Kept parts go back to their positions; text and tool calls fill the others in order.
  const content: AssistantPart[] = [];
  let next = 0;
  let keptNext = 0;
  while (next < canonical.length || keptNext < kept.length) {
    const entry = kept[keptNext];
    if (entry !== undefined && (entry.index <= content.length || next >= canonical.length)) {
      content.push(entry.part);
      keptNext++;
    } else content.push(canonical[next++]!);
  }
  return { role: 'assistant', content };
}

/** The tool calls a run of tool messages answers, to name each result's tool (ctxkit keeps no tool name on results). */
class PendingCalls {
  private readonly used = new Set<number>();
  constructor(private readonly calls: ReadonlyArray<{ id: string; function: { name: string } }>) {}

  /**
   * The tool of the result at `position` in its run: the first unused call with its id, else the call at its position.
   */
  nameFor(toolCallId: string, position: number): string {
    let index = this.calls.findIndex((call, at) => !this.used.has(at) && call.id === toolCallId);
    if (index === -1 && position < this.calls.length && !this.used.has(position)) index = position;
    if (index === -1) return 'unknown';
    this.used.add(index);
    return this.calls[index]!.function.name;
  }
}

/** The tool-result part positions of a source tool message. */
function resultPositions(source: ToolModelMessage): number[] {
  const positions: number[] = [];
  source.content.forEach((part, position) => {
    if (part.type === 'tool-result') positions.push(position);
  });
  return positions;
}

/**
 * The source tool messages a run of ctxkit tool messages reproduces exactly (each source whole, in
 * order), or `undefined` when the run was changed.
 */
function wholeSources(run: ReadonlyArray<{ origin: MessageOrigin | undefined }>): ModelMessage[] | undefined {
  const sources: ModelMessage[] = [];
  let at = 0;
  while (at < run.length) {
    const source = run[at]!.origin?.source;
    if (!source || source.role !== 'tool') return undefined;
    for (const position of resultPositions(source)) {
      if (run[at]?.origin?.source !== source || run[at]!.origin!.part !== position) return undefined;
      at++;
    }
    sources.push(source);
  }
  return sources;
}

function toolMessages(run: ReadonlyArray<Readonly<ToolMessage>>, pending: PendingCalls): ModelMessage[] {
  const entries = run.map((message) => ({ message, origin: originOf(message) }));
  const whole = wholeSources(entries);
  if (whole) return whole;
  const content: ToolPart[] = entries.map(({ message, origin }, position) => {
    const original =
      origin && origin.part !== undefined ? (origin.source as ToolModelMessage).content[origin.part] : undefined;
    if (original) {
      pending.nameFor(message.tool_call_id, position);
      return original;
    }
    return {
      type: 'tool-result',
      toolCallId: message.tool_call_id,
      toolName: pending.nameFor(message.tool_call_id, position),
      output: { type: 'text', value: contentText(message.content) },
    };
  });
  return [{ role: 'tool', content }];
}

/** A source message in the requested form: in a prompt, user and assistant text is always a part array. */
function inForm(source: ModelMessage, form: ModelMessageForm): ModelMessage {
  if (form === 'messages' || typeof source.content !== 'string' || source.role === 'system') return source;
  return { ...source, content: [{ type: 'text', text: source.content }] } as ModelMessage;
}

/** Converts ctxkit messages to AI SDK messages of the given form (see {@link toModelMessages}). */
export function chatToModelMessages(
  messages: ReadonlyArray<Readonly<ChatMessage>>,
  form: ModelMessageForm,
): ModelMessage[] {
  const converted: ModelMessage[] = [];
  let pending = new PendingCalls([]);
  for (let index = 0; index < messages.length; index++) {
    const message = messages[index]!;
    if (message.role === 'tool') {
      let end = index;
      while (messages[end + 1]?.role === 'tool') end++;
      converted.push(...toolMessages(messages.slice(index, end + 1) as ToolMessage[], pending));
      index = end;
      continue;
    }
    const origin = originOf(message);
    if (message.role === 'assistant') pending = new PendingCalls(message.tool_calls ?? []);
    if (origin) {
      converted.push(inForm(origin.source, form));
      continue;
    }
    if (message.role === 'system') converted.push({ role: 'system', content: contentText(message.content) });
    else if (message.role === 'user') converted.push(userMessage(message, form));
    else converted.push(assistantMessage(message, form));
  }
  return converted;
}

/**
 * Converts ctxkit messages back to AI SDK `ModelMessage[]`. A message {@link toChatMessages} made
 * and the strategy kept unchanged becomes exactly the message it came from (every part, every
 * provider option); consecutive tool results become one tool message (the tool messages they came
 * from when all their results are there, in order). A message the strategy wrote or changed (a
 * summary, a cut tool output, a placeholder) is written from its fields: text, images as file parts,
 * tool calls (JSON arguments parsed), tool results as text outputs, and the parts carried in its
 * `ai-sdk` reasoning items back at their positions; the provider options of its text and tool-call
 * parts (Gemini's thought signatures) go back on the text and on the call with the same id.
 */
export function toModelMessages(messages: ReadonlyArray<Readonly<ChatMessage>>): ModelMessage[] {
  return chatToModelMessages(messages, 'messages');
}

/** Converts ctxkit messages to a provider-level prompt (what a language-model middleware sends). */
export function toLanguageModelPrompt(messages: ReadonlyArray<Readonly<ChatMessage>>): LanguageModelPrompt {
  return chatToModelMessages(messages, 'prompt') as unknown as LanguageModelPrompt;
}
