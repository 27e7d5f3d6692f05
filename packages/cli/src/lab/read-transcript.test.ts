import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import type { ChatMessage } from '@ctxkit/core';
import { contentText } from '@ctxkit/core/strategy-kit';

import { readTranscript } from './read-transcript';

const fixtures = path.join(__dirname, '..', '__fixtures__', 'transcripts');

/** What a strategy sees of a history: roles, texts, and which result answers which call. */
function historyOf(messages: readonly ChatMessage[]): unknown[] {
  return messages.map((message) => {
    const text = contentText(message.content ?? '');
    if (message.role === 'tool') return { role: 'tool', text, answers: message.tool_call_id };
    if (message.role === 'assistant' && message.tool_calls?.length) {
      return {
        role: 'assistant',
        text,
        calls: message.tool_calls.map((call) => ({
          id: call.id,
          name: call.function.name,
          args: JSON.parse(call.function.arguments) as unknown,
        })),
      };
    }
    return { role: message.role, text };
  });
}

// The conversation every fixture holds, each in its own shape.
const expected = [
  { role: 'system', text: 'You are a travel assistant. Answer briefly.' },
  { role: 'user', text: 'What is the weather in Paris today?' },
  { role: 'assistant', text: '', calls: [{ id: 'call_weather_1', name: 'get_weather', args: { city: 'Paris' } }] },
  { role: 'tool', text: '18°C and light rain', answers: 'call_weather_1' },
  { role: 'assistant', text: 'It is 18°C with light rain in Paris today.' },
  { role: 'user', text: 'Thanks, I will take an umbrella.' },
  { role: 'assistant', text: 'Good idea. Have a nice day!' },
];

describe('readTranscript', () => {
  let tmp: string;
  beforeAll(() => (tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ctxkit-transcript-'))));
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
  const write = (name: string, text: string): string => {
    const file = path.join(tmp, name);
    fs.writeFileSync(file, text);
    return file;
  };

  it.each([
    ['OpenAI chat, {"messages": [...]} per line', 'openai-chat.jsonl', 1],
    ['AI SDK ModelMessage[], one JSON document', 'ai-sdk.json', 1],
    ['LangChain constructor, {"type", "data"} and {"role"} dumps', 'langchain.jsonl', 3],
    ['Anthropic Messages with a top-level system, one JSON document', 'anthropic.json', 1],
    ['OpenAI Responses input items, an array per line', 'openai-responses.jsonl', 1],
  ])('reads %s into the same history', async (_shape, name, count) => {
    const records = await readTranscript(path.join(fixtures, name));
    expect(records).toHaveLength(count);
    for (const record of records) expect(historyOf(record.messages)).toEqual(expected);
  });

  it('names a record without an id after the file and its line, and keeps a given id', async () => {
    const records = await readTranscript(path.join(fixtures, 'langchain.jsonl'));
    expect(records.map((record) => record.id)).toEqual(['langchain:1', 'langchain:2', 'langchain-role-dump']);
  });

  it('names the line, the shapes it reads and the fix for a record it cannot read', async () => {
    const line = fs.readFileSync(path.join(fixtures, 'openai-chat.jsonl'), 'utf8').trim();
    const file = write('bad-record.jsonl', `${line}\n{"conversation": []}\n`);
    const error = readTranscript(file);
    await expect(error).rejects.toMatchObject({ code: 'CTXKIT_HISTORY_INVALID' });
    await expect(error).rejects.toThrow(
      `${file}:2: expected a conversation: {"id": "...", "messages": [...]}, {"messages": [...]} or an array of ` +
        `messages; got an object with keys "conversation".`,
    );
    await expect(error).rejects.toThrow(
      'Fix: Write one conversation per line (or the whole file as one JSON document)',
    );
  });

  it('leaves out each line it cannot read, with its line and reason, and reads the others', async () => {
    const line = fs.readFileSync(path.join(fixtures, 'openai-chat.jsonl'), 'utf8').trim();
    const file = write('some-bad.jsonl', `${line}\n{"conversation": []}\n{not json\n${line}\n`);
    const skipped: Array<{ line: number; code: string; message: string }> = [];
    const records = await readTranscript(file, {
      onSkip: ({ line: at, error }) => skipped.push({ line: at, code: error.code, message: error.message }),
    });
    expect(records.map((record) => record.id)).toEqual(['some-bad:1', 'some-bad:4']);
    expect(skipped.map(({ line: at, code }) => ({ line: at, code }))).toEqual([
      { line: 2, code: 'CTXKIT_HISTORY_INVALID' },
      { line: 3, code: 'CTXKIT_HISTORY_INVALID' },
    ]);
    expect(skipped[0]!.message).toContain(`${file}:2: expected a conversation`);
    expect(skipped[1]!.message).toContain(`${file}:3: not JSON`);
  });

  it("throws the first line's error when no conversation could be read", async () => {
    const file = write('all-bad.jsonl', '{"conversation": []}\n[]\n');
    const skipped: number[] = [];
    await expect(readTranscript(file, { onSkip: ({ line }) => skipped.push(line) })).rejects.toThrow(
      `${file}:1: expected a conversation`,
    );
    expect(skipped).toEqual([1, 2]);
  });

  it('reads every conversation in the shape --format names', async () => {
    // A text-only conversation reads the same in every shape; named as LangChain, "human" is a user.
    const file = write(
      'named.jsonl',
      '{"messages": [{"role": "system", "content": "Be brief."}, {"role": "human", "content": "Hi"}]}\n',
    );
    const [record] = await readTranscript(file, { format: 'langchain' });
    expect(historyOf(record!.messages)).toEqual([
      { role: 'system', text: 'Be brief.' },
      { role: 'user', text: 'Hi' },
    ]);
    await expect(readTranscript(file, { format: 'openai-chat' })).rejects.toThrow(
      `${file}:1: messages[1] is not a valid OpenAI chat message`,
    );
  });

  it('names the message and the shape it was read as when a message is malformed', async () => {
    const file = write(
      'bad-message.jsonl',
      '{"system": "Be brief.", "messages": [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": ' +
        '[{"type": "tool_use", "name": "get_weather", "input": {}}]}]}\n',
    );
    const error = readTranscript(file);
    await expect(error).rejects.toMatchObject({
      code: 'CTXKIT_HISTORY_INVALID',
      details: { line: 1, shape: 'Anthropic Messages', message: 1 },
    });
    await expect(error).rejects.toThrow(
      `${file}:1: messages[1] is not a valid Anthropic Messages message: content[0] tool_use block lacks id or name.`,
    );
  });

  it('asks for the system prompt when the conversation does not start with one', async () => {
    const file = write(
      'no-system.jsonl',
      '{"messages": [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello"}]}\n',
    );
    await expect(readTranscript(file)).rejects.toThrow(
      `${file}:1: the conversation (OpenAI chat) does not start with a system prompt.`,
    );
  });
});
