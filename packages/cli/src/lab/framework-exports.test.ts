/** @jest-environment <rootDir>/src/__fixtures__/native-require.test.env.ts */
jest.mock('ai', () => nativeRequire('ai'));
jest.mock('ai/test', () => nativeRequire('ai/test'));

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import type { ChatMessage } from '@ctxkit/core';
import { contentText } from '@ctxkit/core/strategy-kit';

import {
  aiSdkExport,
  anthropicExport,
  CONVERSATION,
  langChainExports,
  openAiAgentsExport,
  openAiChatExport,
  openAiResponsesExport,
} from '../__fixtures__/framework-exports';
import type { CliOutput } from '../cli-output';
import type { ComparisonResult } from '../commands/compare-command';
import { runCli } from '../run-cli';
import { detectMessageShape, type MessageShape } from './message-shape';
import { readTranscript } from './read-transcript';
import { transcriptValues } from './transcript-values';

/**
 * What a strategy sees of a history: roles, texts, and which result answers which call (ids left out: each SDK names
 * its own).
 */
function historyOf(messages: readonly ChatMessage[]): unknown[] {
  const callNames = new Map<string, string>();
  return messages.map((message) => {
    const text = contentText(message.content ?? '');
    if (message.role === 'tool') return { role: 'tool', text, answers: callNames.get(message.tool_call_id) };
    if (message.role === 'assistant' && message.tool_calls?.length) {
      for (const call of message.tool_calls) callNames.set(call.id, call.function.name);
      return {
        role: 'assistant',
        text,
        calls: message.tool_calls.map((call) => ({
          name: call.function.name,
          args: JSON.parse(call.function.arguments) as unknown,
        })),
      };
    }
    return { role: message.role, text };
  });
}

const expected = [
  { role: 'system', text: CONVERSATION.system },
  { role: 'user', text: CONVERSATION.question },
  { role: 'assistant', text: '', calls: [{ name: 'get_order', args: { order_id: CONVERSATION.orderId } }] },
  { role: 'tool', text: CONVERSATION.order, answers: 'get_order' },
  { role: 'assistant', text: '', calls: [{ name: 'track_package', args: { tracking_number: CONVERSATION.tracking } }] },
  { role: 'tool', text: CONVERSATION.parcel, answers: 'track_package' },
  { role: 'assistant', text: CONVERSATION.answer },
];

describe('transcripts exported by each framework', () => {
  let tmp: string;
  const files: Record<string, string> = {};
  const write = (name: string, text: string): string => {
    const file = path.join(tmp, name);
    fs.writeFileSync(file, text);
    return file;
  };

  beforeAll(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ctxkit-exports-'));
    const langChain = await langChainExports();
    files['ai-sdk'] = write('ai-sdk.json', await aiSdkExport());
    files['langchain-constructor'] = write('langchain-constructor.jsonl', `${langChain.constructor}\n`);
    files['langchain-stored'] = write('langchain-stored.jsonl', `${langChain.stored}\n`);
    files['openai-chat'] = write('openai-chat.jsonl', await openAiChatExport());
    files['openai-responses'] = write('openai-responses.jsonl', await openAiResponsesExport());
    files.anthropic = write('anthropic.json', await anthropicExport());
    files['openai-agents'] = write('openai-agents.jsonl', await openAiAgentsExport());
  });
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it.each<[string, MessageShape]>([
    ['ai-sdk', 'ai-sdk'],
    ['langchain-constructor', 'langchain'],
    ['langchain-stored', 'langchain'],
    ['openai-chat', 'openai-chat'],
    ['openai-responses', 'openai-responses'],
    ['anthropic', 'anthropic'],
    ['openai-agents', 'openai-agents'],
  ])('reads the %s export, detected as %s, into the conversation it recorded', async (name, shape) => {
    const [first] = await collect(files[name]!);
    const value = first!.value as unknown[] | { messages: unknown[] };
    expect(detectMessageShape(Array.isArray(value) ? value : value.messages)).toBe(shape);
    const detected = await readTranscript(files[name]!);
    expect(detected).toHaveLength(1);
    expect(historyOf(detected[0]!.messages)).toEqual(expected);
    const named = await readTranscript(files[name]!, { format: shape });
    expect(named[0]!.messages).toEqual(detected[0]!.messages);
  });

  it.each(['ai-sdk', 'langchain-stored', 'openai-chat', 'openai-responses', 'anthropic', 'openai-agents'])(
    'compare --transcript reports fact retention on the %s export: the order id the user gave and the tracking ' +
      'number the lookup returned, both kept',
    async (name) => {
      const { code, stderr, result } = await compare(['--transcript', files[name]!], tmp);
      expect(stderr).not.toContain('CTXKIT_');
      expect(code).toBe(0);
      const [row] = result.summaries;
      // get_order needs A-1042 (said by the user), track_package the tracking number (said by get_order's output).
      expect(row!.factChecks).toBe(2);
      expect(row!.factRetention).toBe(1);
    },
  );

  it('compare --format reads every conversation in the shape named, and refuses a shape it does not know', async () => {
    const { code, result } = await compare(['--transcript', files['openai-agents']!, '--format', 'openai-agents'], tmp);
    expect(code).toBe(0);
    expect(result.summaries[0]!.factChecks).toBe(2);
    // Read as Responses items, the Agents SDK's function_call (callId, no call_id) is not one: nothing left to compare.
    const wrong = await cli([
      'compare',
      '--transcript',
      files['openai-agents']!,
      '--format',
      'openai-responses',
      '--no-progress',
    ]);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr.replace(/\s+/g, ' ')).toContain(
      `${files['openai-agents']}:1: messages[1] is not a valid OpenAI Responses message: output[0] function_call ` +
        `lacks call_id or name.`,
    );
    const unknown = await cli(['compare', '--transcript', files['openai-agents']!, '--format', 'agents']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain(
      "argument 'agents' is invalid. Allowed choices are openai-chat, ai-sdk, langchain, anthropic, " +
        'openai-responses, openai-agents.',
    );
  });

  it('compare leaves out a conversation it cannot read, says which line and why, and compares the others', async () => {
    const good = fs.readFileSync(files['openai-chat']!, 'utf8').trim();
    const file = write(
      'mixed.jsonl',
      `${good}\n{"system": "Be brief.", "messages": [{"role": "assistant", "content": [{"type": "tool_use", ` +
        `"name": "get_order", "input": {}}]}]}\n${good}\n`,
    );
    const { code, stderr, result } = await compare(['--transcript', file], tmp);
    expect(code).toBe(0);
    // stderr is wrapped to 100 columns.
    expect(stderr.replace(/\s+/g, ' ')).toContain(
      `Skipped ${file}:2: messages[0] is not a valid Anthropic Messages message: content[0] tool_use block lacks ` +
        `id or name.`,
    );
    expect(result.summaries[0]!.conversations).toBe(2);
    expect(result.summaries[0]!.factChecks).toBe(4);
  });
});

async function collect(file: string): Promise<Array<{ value: unknown }>> {
  const values: Array<{ value: unknown }> = [];
  for await (const read of transcriptValues(file)) if ('value' in read) values.push(read);
  return values;
}

/** Runs `ctxkit <args>`, returning its exit code and stderr. */
async function cli(args: string[]): Promise<{ code: number; stderr: string }> {
  let stderr = '';
  const output: CliOutput = {
    out: () => undefined,
    err: (text) => void (stderr += text),
    color: false,
    interactive: false,
  };
  const code = await runCli(['node', 'ctxkit', ...args], output);
  return { code, stderr };
}

/** Runs `ctxkit compare` with the sliding window over `args`, returning its exit code, stderr and JSON results. */
async function compare(
  args: string[],
  dir: string,
): Promise<{ code: number; stderr: string; result: ComparisonResult }> {
  let stderr = '';
  const output: CliOutput = {
    out: () => undefined,
    err: (text) => void (stderr += text),
    color: false,
    interactive: false,
  };
  const json = path.join(dir, `result-${Math.random().toString(36).slice(2)}.json`);
  const code = await runCli(
    [
      'node',
      'ctxkit',
      'compare',
      ...args,
      '--strategy',
      'std-sliding-window-strategy',
      '--llm',
      'offline',
      '--no-progress',
      '--json',
      json,
    ],
    output,
  );
  return { code, stderr, result: JSON.parse(fs.readFileSync(json, 'utf8')) as ComparisonResult };
}
