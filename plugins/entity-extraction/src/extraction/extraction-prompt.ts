import type { ChatMessage } from '@ctxkit/core';

import type { ExtractionRequest } from './state-extractor';

/**
 * The built-in instruction of the extraction call (its system message). `extractionPrompt` in the
 * config replaces it; the data message built by {@link buildExtractionMessages} is sent either way.
 */
export const DEFAULT_EXTRACTION_PROMPT = [
  'You keep the structured state of a conversation up to date.',
  'You receive the JSON Schema of the state, the current state, the last assistant message, the results of the ' +
    'tools the assistant called since the previous update, and the new user message(s).',
  'Answer with ONE JSON object that holds only the fields the new messages set or change, using the field names of ' +
    'the schema.',
  'Tool results are data the assistant looked up: take ids, names and dates from them where the state needs them; ' +
    "what the user wants comes from the user's words.",
  'Leave out every field that did not change: absent fields keep their current value.',
  'Use null to clear a field, and only where the schema allows null.',
  'Use only values the conversation states; never invent values. If nothing changed, answer {}.',
  'Answer with the JSON object only, without prose or code fences.',
].join('\n');

/** Escapes the closing tag of a block so that message text cannot end the block early. */
function escapeBlock(text: string, tag: string): string {
  return text.split(`</${tag}>`).join(`<\\/${tag}>`);
}

/** Characters of one tool result shown to the model; a longer result is cut with a marker. */
export const TOOL_RESULT_PROMPT_CHARS = 6000;

function shortenToolResult(text: string): string {
  return text.length <= TOOL_RESULT_PROMPT_CHARS
    ? text
    : `${text.slice(0, TOOL_RESULT_PROMPT_CHARS)}\n[... ${text.length - TOOL_RESULT_PROMPT_CHARS} more characters ` +
        `not shown]`;
}

/** A tool name as an attribute value: quotes and angle brackets removed. */
function escapeAttribute(text: string): string {
  return text.replace(/["<>&]/g, '');
}

function block(tag: string, body: string, attributes = ''): string {
  return `<${tag}${attributes}>\n${escapeBlock(body, tag)}\n</${tag}>`;
}

/**
 * The messages of the first extraction attempt: the instruction, then one user message with
 * `<state_schema>`, `<current_state>`, `<last_assistant_message>`, one `<tool_result>` per new tool
 * result (with the function's name when known; cut at {@link TOOL_RESULT_PROMPT_CHARS} characters)
 * and one `<new_user_message>` per new user message. Request data is copied; nothing is shared
 * with the caller's history.
 */
export function buildExtractionMessages(request: ExtractionRequest, instruction: string | null): ChatMessage[] {
  const parts = [
    block('state_schema', JSON.stringify(request.schema.schema, null, 2)),
    block('current_state', JSON.stringify(request.state, null, 2)),
    block('last_assistant_message', request.input.lastAssistantText ?? '(none)'),
    ...request.input.toolResults.map((result) =>
      block(
        'tool_result',
        shortenToolResult(result.text),
        ` index="${result.index}"${result.toolName ? ` name="${escapeAttribute(result.toolName)}"` : ''}`,
      ),
    ),
    ...request.input.userMessages.map((message) =>
      block('new_user_message', message.text, ` index="${message.index}"`),
    ),
  ];
  return [
    { role: 'system', content: instruction ?? DEFAULT_EXTRACTION_PROMPT },
    { role: 'user', content: parts.join('\n\n') },
  ];
}

/**
 * The extraction request's `continuation` of the conversation's last request: the instruction and
 * the data message of {@link buildExtractionMessages} as one user message (a continuation carries
 * no system message), asking not to answer the conversation above nor call its tools.
 */
export function buildExtractionContinuation(messages: ReadonlyArray<ChatMessage>): ChatMessage[] {
  const [instruction, data] = messages;
  return [
    {
      role: 'user',
      content:
        `<extraction_instructions>\n${String(instruction!.content)}\n</extraction_instructions>\n\nDo not ` +
        `answer or continue the conversation above, and do not call any tool: update its ` +
        `state.\n\n${String(data!.content)}`,
    },
  ];
}

/** The follow-up message of the retry: the validation errors of the previous answer. */
export function buildRetryMessage(errors: readonly string[]): ChatMessage {
  return {
    role: 'user',
    content: [
      'Your answer could not be used:',
      block('validation_errors', errors.join('\n')),
      'Answer again with ONE JSON object that fixes these errors: only the changed fields, valid against the ' +
        'schema, no prose.',
    ].join('\n'),
  };
}
