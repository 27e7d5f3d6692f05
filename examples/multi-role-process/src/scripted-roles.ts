import { type ChatMessage, type LLMCompletionRequest } from '@ctxkit/core';
import { contentText } from '@ctxkit/core/strategy-kit';
import { ScriptedLLMClient } from '@ctxkit/core/testing';
import type { AgentTool } from '@ctxkit/kernel';

function lastUserText(messages: readonly ChatMessage[]): string {
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index]!;
    if (message.role === 'user') return contentText(message.content);
  }
  return '';
}

/** The offline support model: a polite, fairly long answer to the latest question. */
export function supportModel(): ScriptedLLMClient {
  return new ScriptedLLMClient(
    [
      (request: LLMCompletionRequest) =>
        `About "${lastUserText(request.messages)}": ` +
        'our policy allows this within 24 hours of booking, and I can check the details for you. '.repeat(3),
    ],
    { repeatLast: true, name: 'scripted-support' },
  );
}

const HEROES = ['Aiko', 'the lighthouse keeper', 'a stray cat named Miso', 'the harbour master'];

/**
 * The offline novelist: a chapter about the harbour town, naming the chapter asked for; a summary request (the
 * strategy's `<transcript>`) gets the chapters it holds.
 */
export function novelistModel(): ScriptedLLMClient {
  return new ScriptedLLMClient(
    [
      (request: LLMCompletionRequest) => {
        const transcript = /<transcript[^>]*>([\s\S]*?)<\/transcript>/.exec(lastUserText(request.messages))?.[1];
        if (transcript !== undefined)
          return (
            `<summary>So ` +
            `far: ${
              [...transcript.matchAll(/Chapter (\d+)\./g)].map((match) => `chapter ` + `${match[1]}`).join(', ') ||
              'no chapter'
            } at the lighthouse harbour.</summary>`
          );
        const chapter = Number(/chapter (\d+)/i.exec(lastUserText(request.messages))?.[1] ?? '0');
        return (
          `Chapter ${chapter}. ${HEROES[chapter % HEROES.length]!} walked the lighthouse harbour at dawn. ` +
          'The fog rolled in over the boats and the bells rang softly. '.repeat(8)
        );
      },
    ],
    { repeatLast: true, name: 'scripted-novelist' },
  );
}

/**
 * The offline booking model: acknowledges and asks for what is missing; an extraction request (JSON) gets the user id
 * and reservation codes of the new customer messages.
 */
export function bookingModel(): ScriptedLLMClient {
  return new ScriptedLLMClient(
    [
      (request: LLMCompletionRequest) => {
        if (request.responseFormat !== 'json') return 'Noted. Anything else for this booking?';
        const said = [
          ...lastUserText(request.messages).matchAll(/<new_user_message[^>]*>([\s\S]*?)<\/new_user_message>/g),
        ]
          .map((match) => match[1]!)
          .join('\n');
        const userId = /\b[a-z]+_[a-z]+_\d+\b/.exec(said)?.[0];
        const reservations = said.match(/\b(?=[A-Z0-9]{6}\b)(?=[A-Z0-9]*\d)[A-Z0-9]*[A-Z][A-Z0-9]*\b/g) ?? [];
        return JSON.stringify({
          ...(userId ? { user_id: userId } : {}),
          ...(reservations.length > 0 ? { reservation_ids: reservations } : {}),
        });
      },
    ],
    { repeatLast: true, name: 'scripted-booking' },
  );
}

/**
 * The offline coding model: on each new user message it runs one shell command, then answers from
 * its output. Compaction requests (sent without tools) get a retain + summary answer.
 */
export function codingModel(): ScriptedLLMClient {
  return new ScriptedLLMClient(
    [
      (request: LLMCompletionRequest, callIndex: number) => {
        if (!request.tools || request.tools.length === 0)
          return (
            '<retain>Repository under /workspace</retain>\n<summary>The agent listed and grepped the ' +
            'sources.</summary>'
          );
        const last = request.messages[request.messages.length - 1];
        if (last?.role === 'tool') return 'I read the output; the next step is clear.';
        return {
          content: null,
          tool_calls: [
            {
              id: `call_${callIndex}`,
              type: 'function',
              function: {
                name: 'execute_bash',
                arguments: JSON.stringify({ command: `grep -rn TODO src # ${lastUserText(request.messages)}` }),
              },
            },
          ],
        };
      },
    ],
    { repeatLast: true, name: 'scripted-coder' },
  );
}

/** A shell tool whose every call prints a long, distinct listing (so the cache has work to do). */
export function shellTool(): AgentTool {
  let calls = 0;
  return {
    definition: {
      type: 'function',
      function: {
        name: 'execute_bash',
        description: 'Run a shell command in the repository.',
        parameters: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] },
      },
    },
    execute: () => {
      calls++;
      return Array.from(
        { length: 300 },
        (_, line) =>
          `src/module_${calls}/file_${line}.c:${line + 1}: // TODO(run ${calls}) handle the edge case ${line}`,
      ).join('\n');
    },
  };
}
