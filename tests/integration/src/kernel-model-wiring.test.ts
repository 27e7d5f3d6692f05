import 'reflect-metadata';

import * as path from 'node:path';

import {
  type ContextRuntime,
  createContextRuntime,
  type CtxkitEventPayloads,
  ErrorCodes,
  LLMClientInUseError,
  type LLMCompletionRequest,
} from '@ctxkit/core';
import { contentText } from '@ctxkit/core/strategy-kit';
import { type RecordedRequest, ScriptedLLMClient, type ScriptStep } from '@ctxkit/core/testing';
import { createAgent } from '@ctxkit/kernel';

import { CASES_DIR } from './kernel-case';

/**
 * One model client for the agent, end to end: plugin.json → createContextRuntime → loadAgent
 * (validation, DI) → createAgent (kernel) → a recording client. The client given to the agent is
 * the one its strategy uses; a model the manifest names for the strategy's own work is asked for by
 * name through it; the kernel names the manifest's model and the budget's answer reservation on
 * every call; an agent without a client says that its strategy works offline.
 */

const manifest = (name: string) => path.join(CASES_DIR, 'kernel-model-wiring', `${name}.plugin.json`);
const LIGHT_MODEL = 'gpt-4o-mini';
const SUMMARY = 'The traveller is planning a week in Lisbon in May, flying from Boston.';

/** Answers the strategy's calls (the light model) with `strategyAnswer`, the agent's with a short reply. */
function recordingClient(strategyAnswer: (request: LLMCompletionRequest) => ScriptStep): ScriptedLLMClient {
  return new ScriptedLLMClient(
    [
      (request) =>
        request.model === LIGHT_MODEL
          ? strategyAnswer(request)
          : { reply: 'Noted.', usage: { input_tokens: 400, output_tokens: 3 } },
    ],
    {
      repeatLast: true,
      name: 'recording-model',
      defaultModel: 'client-default-model',
    },
  );
}

const byModel = (requests: readonly RecordedRequest[], model: string) =>
  requests.filter((request) => request.model === model);
const long = (topic: string) =>
  `${topic} ` +
  `${(
    'We compare hotels near the river, the tram lines, the museums and the restaurants in each ' + 'district. '
  ).repeat(25)}`;

describe('one model client (plugin.json → loader → DI → kernel, a recording client)', () => {
  let runtime: ContextRuntime;

  beforeEach(async () => {
    runtime = await createContextRuntime();
  });
  afterEach(async () => {
    await runtime.dispose();
  });

  it(
    'the client given to createAgent writes the summaries, asking for compressionModel by name; the kernel names ' +
      'the manifest model and the answer reservation',
    async () => {
      const handle = await runtime.loadAgent(manifest('summarization'));
      const warnings: Array<CtxkitEventPayloads['strategy-warning']> = [];
      handle.events.on('strategy-warning', (event) => warnings.push(event));
      const llm = recordingClient(() => `<summary>${SUMMARY}</summary>`);
      const agent = createAgent(handle, { llm });
      expect(handle.llm).toBe(llm);
      for (const question of [
        'I want to visit Lisbon.',
        'In May, for a week.',
        'Flying from Boston.',
        'Which district should I stay in?',
      ]) {
        await agent.run(long(question), { waitForIdle: true });
      }
      const kernelCalls = byModel(llm.requests, 'gpt-4o');
      const summaryCalls = byModel(llm.requests, LIGHT_MODEL);
      expect(kernelCalls).toHaveLength(4);
      expect(summaryCalls.length).toBeGreaterThan(0);
      expect(kernelCalls.length + summaryCalls.length).toBe(llm.requests.length);
      expect(kernelCalls.every((request) => request.maxOutputTokens === 200)).toBe(true);
      expect(summaryCalls.every((request) => !request.tools)).toBe(true);
      // The summary the agent's client wrote is what the model receives next.
      expect(
        kernelCalls
          .at(-1)!
          .messages.map((message) => contentText(message.content ?? null))
          .join('\n'),
      ).toContain(SUMMARY);
      expect(warnings).toEqual([]);
    },
  );

  it('the client given to loadAgent serves the kernel and the strategy alike when createAgent gets none', async () => {
    const llm = recordingClient(() => `<summary>${SUMMARY}</summary>`);
    const handle = await runtime.loadAgent(manifest('summarization'), { llm });
    const agent = createAgent(handle);
    for (const question of ['I want to visit Lisbon.', 'In May, for a week.', 'Flying from Boston.'])
      await agent.run(long(question), { waitForIdle: true });
    expect(byModel(llm.requests, 'gpt-4o')).toHaveLength(3);
    expect(byModel(llm.requests, LIGHT_MODEL).length).toBeGreaterThan(0);
  });

  it(
    'entity extraction asks for extractionModel by name through the agent client, and the state reaches the ' + 'model',
    async () => {
      const handle = await runtime.loadAgent(manifest('entity-extraction'));
      const llm = recordingClient(() => JSON.stringify({ user_id: 'mia_li_3668', destination: 'SEA' }));
      const agent = createAgent(handle, { llm });
      await agent.run("Hi, I'm mia_li_3668 and I want to fly to Seattle.");
      await agent.run('Tomorrow, please.');
      const extractions = byModel(llm.requests, LIGHT_MODEL);
      expect(extractions.length).toBeGreaterThan(0);
      expect(extractions.every((request) => request.responseFormat === 'json' && !request.tools)).toBe(true);
      const kernelCalls = byModel(llm.requests, 'gpt-4o');
      expect(kernelCalls).toHaveLength(2);
      expect(kernelCalls.every((request) => request.maxOutputTokens === 300)).toBe(true);
      expect(contentText(kernelCalls.at(-1)!.messages[1]!.content ?? null)).toContain('"destination": "SEA"');
    },
  );

  it('tool-output cache compaction asks for compaction.model by name through the agent client', async () => {
    const handle = await runtime.loadAgent(manifest('tool-output-cache'));
    const llm = new ScriptedLLMClient(
      [
        (request) =>
          request.model === LIGHT_MODEL
            ? '<retain>repo at /workspace, failing test tests/test_parser.py</retain>\n<summary>The parser test ' +
              'fails on empty input; next: fix parse().</summary>'
            : // The provider reports a usage past the compaction threshold on every call.
              { reply: 'Looking into it.', usage: { input_tokens: 7_000, output_tokens: 4 } },
      ],
      { repeatLast: true, name: 'recording-model' },
    );
    const agent = createAgent(handle, { llm });
    for (const step of ['Run the parser tests.', 'Read src/parser.py.', 'What fails?', 'Fix it.'])
      await agent.run(long(step), { waitForIdle: true });
    const compactions = byModel(llm.requests, LIGHT_MODEL);
    expect(compactions.length).toBeGreaterThan(0);
    expect(compactions.every((request) => !request.tools)).toBe(true);
    expect(byModel(llm.requests, 'gpt-4o').every((request) => request.maxOutputTokens === 500)).toBe(true);
  });

  it(
    'without a client, says once that the strategy works on its offline fallback, and refuses a client once a ' +
      'session has worked without one',
    async () => {
      const handle = await runtime.loadAgent(manifest('summarization'));
      const warnings: Array<CtxkitEventPayloads['strategy-warning']> = [];
      handle.events.on('strategy-warning', (event) => warnings.push(event));
      const session = handle.contextManager;
      await session.composePayload(
        'You are a travel agent.',
        [{ role: 'user', content: 'I want to visit Lisbon.' }],
        [],
      );
      await session.onTurnComplete([
        { role: 'user', content: 'I want to visit Lisbon.' },
        { role: 'assistant', content: 'Noted.' },
      ]);
      expect(warnings).toEqual([
        expect.objectContaining({
          code: ErrorCodes.LLM_NOT_CONFIGURED,
          agentId: 'travel-agent',
          strategyId: 'std-summarization-strategy',
        }),
      ]);
      expect(warnings[0]!.message).toContain('offline fallback');
      expect(() => createAgent(handle, { llm: recordingClient(() => '') })).toThrow(LLMClientInUseError);
    },
  );
});
