import {
  type ChatMessage,
  ConfigSchemaError,
  ConfigValidationError,
  type IContextStore,
  type ILLMClient,
  type LLMCompletion,
  type LLMCompletionRequest,
  MemoryContextStore,
} from '@ctxkit/core';
import { findPayloadProblems } from '@ctxkit/core/strategy-kit';
import { createConformanceContext, freezeDeep, ScriptedLLMClient, type ScriptStep } from '@ctxkit/core/testing';

import { createStrategy } from './create-entity-extraction-strategy';
import { hasEntityState } from './state/entity-state-access';

const stateSchema = {
  type: 'object',
  properties: {
    destination: { type: 'string' },
    date: { type: 'string', format: 'date' },
    note: { type: ['string', 'null'] },
  },
  required: ['destination', 'date'],
  additionalProperties: false,
};

function setup(
  options: {
    script?: ScriptStep[];
    sessionId?: string;
    store?: IContextStore;
    config?: Record<string, unknown>;
    llm?: 'none';
  } = {},
) {
  const llm = options.llm === 'none' ? undefined : new ScriptedLLMClient(options.script ?? [], { name: 'scripted' });
  const { context, events } = createConformanceContext(
    options.sessionId ?? 's1',
    {
      agentId: 'booking-agent',
      strategyId: 'std-entity-extraction-strategy',
      llm,
      ...(options.store ? { store: options.store } : {}),
    },
    undefined,
  );
  // Every payload sends the newest state and drops only what must go (cutBackRatio 1); the held
  // window and state of a cut back are tested with the prompt-caching cases that set it.
  const strategy = createStrategy({ stateSchema, cutBackRatio: 1, ...options.config }, context);
  return { strategy, events, llm, context };
}

const history1: ChatMessage[] = [{ role: 'user', content: 'I want to fly to Seattle.' }];
const history2: ChatMessage[] = [
  ...history1,
  { role: 'assistant', content: 'When do you want to fly?' },
  { role: 'user', content: 'On May 20th 2024.' },
];

describe('EntityExtractionStrategy', () => {
  describe('#composePayload', () => {
    it('extracts the state from a new user message and sends it as JSON after the system prompt', async () => {
      const { strategy, events, llm } = setup({ script: ['{"destination": "Seattle"}'] });
      const payload = await strategy.composePayload('You book flights.', history1, []);
      expect(payload.messages[0]).toEqual({ role: 'system', content: 'You book flights.' });
      expect(payload.messages[1]!.role).toBe('user');
      expect(payload.messages[1]!.content).toContain(
        '<conversation_state version="1">\n{\n"destination": "Seattle"\n}\n</conversation_state>',
      );
      expect(payload.messages[1]!.content).toContain('Required fields still missing: date.');
      expect(payload.messages.slice(2)).toEqual(history1);
      const request = llm!.requests[0]!;
      expect(request.tools).toBeNull();
      expect(String(request.messages[1]!.content)).toContain(
        '<new_user_message index="0">\nI want to fly to Seattle.\n</new_user_message>',
      );
      const updated = events.find((event) => event.name === 'entities-updated')!;
      expect(updated.payload).toMatchObject({
        version: 1,
        sourceMessageIndex: 0,
        diff: [{ field: 'destination', before: null, after: 'Seattle' }],
        turn: 1,
      });
      expect(payload.stats.extra!['entities']).toMatchObject({
        version: 1,
        state: { destination: 'Seattle' },
        missingRequired: ['date'],
      });
    });

    it('merges later answers: absent fields keep their value, null clears a nullable field', async () => {
      const { strategy } = setup({
        script: ['{"destination": "Seattle", "note": "aisle"}', '{"date": "2024-05-20", "note": null}'],
      });
      await strategy.composePayload('sys', history1, []);
      const payload = await strategy.composePayload('sys', history2, []);
      expect(await strategy.getState()).toEqual({ destination: 'Seattle', date: '2024-05-20' });
      expect(payload.messages[1]!.content).toContain('All required fields are known.');
      const versions = await strategy.getVersions();
      expect(versions.map((v) => [v.version, v.sourceMessageIndex, v.offline, v.extractor])).toEqual([
        [1, 0, true, 'llm:scripted/gpt-4o'],
        [2, 2, true, 'llm:scripted/gpt-4o'],
      ]);
      expect(versions[1]!.diff).toEqual([
        { field: 'date', before: null, after: '2024-05-20' },
        { field: 'note', before: 'aisle', after: null },
      ]);
      expect(await strategy.getStateAt(1)).toEqual({ destination: 'Seattle', note: 'aisle' });
      expect(await strategy.getStateAt(0)).toEqual({});
    });

    it('by default fills the room beside the state with the newest history that fits', async () => {
      const { strategy } = setup({ script: ['{"destination": "Seattle"}', '{"date": "2024-05-20"}'] });
      await strategy.composePayload('sys', history1, []);
      const payload = await strategy.composePayload('sys', history2, []);
      expect(payload.messages.slice(2)).toEqual(history2);
      expect(payload.stats.dropped).toBe(0);
    });

    it(
      'fills a small budget: the state block plus the newest whole turns, older ones recoverable from the entity ' +
        'state',
      async () => {
        const { strategy } = setup({
          script: ['{"destination": "Seattle"}', '{"date": "2024-05-20"}', '{}', '{}', '{}'],
          config: { maxContextTokens: 260, reserveOutputTokens: 0 },
        });
        let history: ChatMessage[] = [];
        for (let n = 0; n < 5; n++) {
          history = [
            ...history,
            { role: 'user', content: `Turn ${n}: ${'I would like to travel somewhere warm this spring. '.repeat(2)}` },
            { role: 'assistant', content: `Noted, turn ${n}. ${'Let me check the options for you. '.repeat(2)}` },
          ];
          await strategy.composePayload('sys', history.slice(0, -1), []);
        }
        const payload = await strategy.composePayload('sys', [...history, { role: 'user', content: 'Book it.' }], []);
        expect(payload.messages[1]!.content).toContain('<conversation_state');
        expect(payload.stats.dropped).toBeGreaterThan(0);
        expect(
          payload.stats.reductions.find((record) => record.action === 'dropped' && record.from === 0),
        ).toMatchObject({ recoverableFrom: 'entity-state' });
        expect(payload.stats.output_tokens / payload.stats.budget.available).toBeGreaterThan(0.8);
        expect(payload.stats.output_tokens).toBeLessThanOrEqual(payload.stats.budget.available);
      },
    );

    it(
      'in lean mode keeps only the last recentTurns turns verbatim and reports older ones as recoverable from the ' +
        'entity state',
      async () => {
        const { strategy, events } = setup({
          script: ['{"destination": "Seattle"}', '{"date": "2024-05-20"}'],
          config: { lean: true },
        });
        await strategy.composePayload('sys', history1, []);
        const payload = await strategy.composePayload('sys', history2, []);
        expect(payload.messages.slice(2)).toEqual([history2[2]]);
        expect(payload.stats.reductions).toEqual([
          expect.objectContaining({ action: 'dropped', from: 0, to: 2, messages: 2, recoverableFrom: 'entity-state' }),
        ]);
        expect(payload.stats.dropped).toBe(2);
        expect(events.some((event) => event.name === 'history-trim')).toBe(true);
      },
    );

    it('does not extract again when the same user message is composed twice (tool steps of one turn)', async () => {
      const { strategy, llm } = setup({ script: ['{"destination": "Seattle"}'] });
      await strategy.composePayload('sys', history1, []);
      const withTool: ChatMessage[] = [
        ...history1,
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'search', arguments: '{}' } }],
        },
        { role: 'tool', tool_call_id: 'c1', content: 'results' },
      ];
      const payload = await strategy.composePayload('sys', withTool, []);
      expect(llm!.requests).toHaveLength(1);
      expect(payload.messages.slice(2)).toEqual(withTool);
      expect(findPayloadProblems(payload.messages)).toEqual([]);
    });

    it('retries an invalid answer once with the validation errors, then succeeds', async () => {
      const { strategy, llm, events } = setup({
        script: ['Sure! ```json\n{"date": "May 20th"}\n```', '{"date": "2024-05-20", "destination": "Seattle"}'],
      });
      await strategy.composePayload('sys', history1, []);
      expect(llm!.requests).toHaveLength(2);
      const retry = llm!.requests[1]!.messages;
      expect(retry[2]).toEqual({ role: 'assistant', content: 'Sure! ```json\n{"date": "May 20th"}\n```' });
      expect(String(retry[3]!.content)).toMatch(/<validation_errors>\n\/date: must match format "date"/);
      expect(await strategy.getState()).toEqual({ date: '2024-05-20', destination: 'Seattle' });
      expect(events.some((event) => event.name === 'entities-error')).toBe(false);
    });

    it('retries unparsable JSON once, then keeps the previous state and says why in an event', async () => {
      const { strategy, llm, events } = setup({
        script: ['{"destination": "Seattle"}', 'I think they want Paris', '{"destination": 42}'],
      });
      await strategy.composePayload('sys', history1, []);
      const payload = await strategy.composePayload('sys', history2, []);
      expect(llm!.requests).toHaveLength(3);
      expect(String(llm!.requests[2]!.messages[3]!.content)).toContain('no JSON object found');
      expect(await strategy.getState()).toEqual({ destination: 'Seattle' });
      const error = events.find((event) => event.name === 'entities-error')!;
      expect(error.payload).toMatchObject({ attempts: 2, errors: ['/destination: must be string'] });
      expect(String(error.payload['reason'])).toMatch(/previous state stands/);
      expect(payload.stats.extra!['entities']).toMatchObject({ version: 1, lastError: { reason: 'invalid-answer' } });
    });

    it('keeps the previous state when the model call fails', async () => {
      const { strategy, events } = setup({ script: [new Error('connection reset')] });
      const payload = await strategy.composePayload('sys', history1, []);
      expect(await strategy.getState()).toEqual({});
      expect(events.find((event) => event.name === 'entities-error')!.payload).toMatchObject({
        attempts: 1,
        errors: ['connection reset'],
      });
      expect(payload.messages.at(-1)).toEqual(history1[0]);
    });

    it('uses the offline extractor without a language model and names it as offline', async () => {
      const { strategy, events } = setup({ llm: 'none' });
      await strategy.composePayload('sys', [{ role: 'user', content: 'Fly on 2024-05-20 please' }], []);
      expect(await strategy.getState()).toEqual({ date: '2024-05-20' });
      expect(events.find((event) => event.name === 'entities-updated')!.payload).toMatchObject({ offline: true });
      expect((await strategy.getVersions())[0]!.extractor).toBe('offline-extractor');
    });

    it('never mutates deep-frozen history, tools and config', async () => {
      const history = freezeDeep(structuredClone(history2));
      const tools = freezeDeep([
        { type: 'function' as const, function: { name: 'search', parameters: { type: 'object' } } },
      ]);
      const config = freezeDeep({ stateSchema: structuredClone(stateSchema), recentTurns: 2 });
      const { context } = createConformanceContext(
        's',
        { llm: new ScriptedLLMClient(['{"destination":"Seattle","date":"2024-05-20"}']) },
        undefined,
      );
      const strategy = createStrategy(config, context);
      const payload = await strategy.composePayload('sys', history as ChatMessage[], tools);
      expect(payload.messages.slice(-3)).toEqual(history2);
      expect(payload.tools).toEqual(tools);
    });

    it('keeps the state block within stateMaxTokens, shortening fields deterministically and saying so', async () => {
      const long = JSON.stringify({ destination: 'S'.repeat(4000), date: '2024-05-20' });
      const { strategy } = setup({ script: [long], config: { stateMaxTokens: 100 } });
      const payload = await strategy.composePayload('sys', history1, []);
      const entities = payload.stats.extra!['entities'] as { stateTokens: number; truncatedFields: string[] };
      expect(entities.stateTokens).toBeLessThanOrEqual(100);
      expect(entities.truncatedFields).toEqual(['destination']);
      expect(payload.messages[1]!.content).toContain('Shortened to fit: destination.');
      expect((await strategy.getState())['destination']).toHaveLength(4000);
    });

    it('stays within maxContextTokens by cutting the current turn and never splits a tool-call group', async () => {
      const big = 'line of output\n'.repeat(3000);
      const history: ChatMessage[] = [
        { role: 'user', content: 'Find flights to Seattle' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'search', arguments: '{}' } }],
        },
        { role: 'tool', tool_call_id: 'c1', content: big },
      ];
      const { strategy } = setup({
        script: ['{"destination":"Seattle"}'],
        config: { maxContextTokens: 2000, reserveOutputTokens: 200 },
      });
      const payload = await strategy.composePayload('sys', history, []);
      expect(payload.stats.output_tokens).toBeLessThanOrEqual(payload.stats.budget.available);
      expect(findPayloadProblems(payload.messages)).toEqual([]);
      expect(payload.messages.at(-1)!.content).toMatch(/\[\.\.\. [\d,]+ lines \([\d,]+ bytes\) elided \.\.\.\]/);
      expect(payload.stats.reductions).toEqual([
        expect.objectContaining({ action: 'truncated', from: 2, to: 3, recoverableFrom: 'history' }),
      ]);
    });

    it('reports older recent turns that do not fit the budget as recoverable from the entity state', async () => {
      const history: ChatMessage[] = [
        { role: 'user', content: 'I want to fly to Seattle.' },
        { role: 'assistant', content: 'Here is everything about Seattle. '.repeat(400) },
        { role: 'user', content: 'On May 20th 2024.' },
        { role: 'assistant', content: 'Noted.' },
        { role: 'user', content: 'Thanks.' },
      ];
      const { strategy, events } = setup({
        script: ['{"destination":"Seattle","date":"2024-05-20"}'],
        config: { recentTurns: 3, maxContextTokens: 2000, reserveOutputTokens: 200 },
      });
      const payload = await strategy.composePayload('sys', history, []);
      expect(payload.messages.slice(2)).toEqual(history.slice(2));
      expect(payload.stats.reductions).toEqual([
        expect.objectContaining({ action: 'dropped', from: 0, to: 2, messages: 2, recoverableFrom: 'entity-state' }),
      ]);
      expect(payload.stats.output_tokens).toBeLessThanOrEqual(payload.stats.budget.available);
      expect(events.find((event) => event.name === 'history-trim')!.payload).toMatchObject({ droppedMessages: 2 });
    });

    it(
      'leaves out older steps of a long current turn oldest first and keeps the newest step with the user ' + 'message',
      async () => {
        const call = (id: string): ChatMessage => ({
          role: 'assistant',
          content: null,
          tool_calls: [{ id, type: 'function', function: { name: 'search', arguments: '{}' } }],
        });
        const history: ChatMessage[] = [{ role: 'user', content: 'Find flights to Seattle' }];
        for (let step = 1; step <= 40; step++)
          history.push(call(`c${step}`), {
            role: 'tool',
            tool_call_id: `c${step}`,
            content: `result ${step}\n`.repeat(300),
          });
        const { strategy } = setup({
          script: ['{"destination":"Seattle"}'],
          config: { maxContextTokens: 2000, reserveOutputTokens: 200 },
        });
        const payload = await strategy.composePayload('sys', freezeDeep(structuredClone(history)) as ChatMessage[], []);
        expect(payload.stats.output_tokens).toBeLessThanOrEqual(payload.stats.budget.available);
        expect(findPayloadProblems(payload.messages)).toEqual([]);
        expect(payload.messages[2]).toEqual(history[0]);
        expect(payload.messages.at(-2)).toEqual(history.at(-2));
        const dropped = payload.stats.reductions.filter((record) => record.action === 'dropped');
        expect(dropped.length).toBeGreaterThan(0);
        expect(dropped[0]).toMatchObject({ from: 1, recoverableFrom: 'history' });
      },
    );

    it('rejects with a typed error when the system prompt alone exceeds the budget', async () => {
      const { strategy } = setup({ script: ['{}'], config: { maxContextTokens: 100, reserveOutputTokens: 10 } });
      await expect(strategy.composePayload('x '.repeat(500), history1, [])).rejects.toMatchObject({
        code: 'CTXKIT_BUDGET_EXCEEDED',
      });
    });
  });

  describe('#model-down', () => {
    /** A model that never answers, as over a dead connection, and honours its abort signal. */
    class UnansweringLLMClient implements ILLMClient {
      readonly name = 'unanswering';
      readonly defaultModel = 'gpt-4o';
      readonly offline = false;
      readonly requests: LLMCompletionRequest[] = [];
      aborted = 0;

      complete(request: LLMCompletionRequest): Promise<LLMCompletion> {
        this.requests.push(request);
        return new Promise<LLMCompletion>((_resolve, reject) => {
          request.signal?.addEventListener('abort', () => (this.aborted++, reject(request.signal!.reason)), {
            once: true,
          });
        });
      }
    }

    async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
      const started = performance.now();
      const value = await work();
      return { value, ms: performance.now() - started };
    }

    it(
      'waits for a model that does not answer at most extractionWaitMs, once, then backs off and retries in the ' +
        'background: payloads come at once with the last state and say why',
      async () => {
        const WAIT_MS = 150;
        let clock = Date.UTC(2025, 0, 1);
        const llm = new UnansweringLLMClient();
        const { context, events } = createConformanceContext(
          's1',
          { agentId: 'booking-agent', strategyId: 'std-entity-extraction-strategy', llm, now: () => clock },
          undefined,
        );
        const strategy = createStrategy(
          { stateSchema, extractionWaitMs: WAIT_MS, extractionTimeoutMs: 400, extractionRetryBackoffMs: 60_000 },
          context,
        );
        // Counting and the window are ready before the first timed call (their one-off set-up is not the model's wait).
        await setup({ llm: 'none' }).strategy.composePayload('sys', history2, []);
        const warnings = () =>
          events.filter((event) => event.name === 'strategy-warning').map((event) => String(event.payload['message']));
        const pending = (payload: { stats: { extra?: Record<string, unknown> } }) =>
          (payload.stats.extra!['entities'] as { pendingExtraction: unknown }).pendingExtraction;

        // The first payload waits for the model at most the deadline, then goes with the state as it was.
        const first = await timed(() => strategy.composePayload('sys', history1, []));
        expect(first.ms).toBeGreaterThanOrEqual(WAIT_MS - 5);
        expect(first.ms).toBeLessThan(WAIT_MS + 200);
        expect(first.value.messages.slice(2)).toEqual(history1);
        expect(pending(first.value)).toEqual({
          reason: 'late',
          from: 0,
          through: 0,
          message: expect.stringContaining('had not answered within 150 ms'),
        });
        expect(warnings()).toEqual([
          expect.stringMatching(/composed without the extraction of message 0: the extraction model had not answered/),
        ]);
        // While that extraction runs on, the next payload does not wait for the model.
        const second = await timed(() => strategy.composePayload('sys', history2, []));
        expect(second.ms).toBeLessThan(50);
        expect(pending(second.value)).toMatchObject({ reason: 'running', from: 0, through: 2 });
        expect(llm.requests).toHaveLength(1);

        // The extraction times out in the background (extractionTimeoutMs): reported, and the model is left alone.
        await strategy.whenIdle();
        expect(llm.aborted).toBe(1);
        expect(events.filter((event) => event.name === 'entities-error').map((event) => event.payload)).toEqual([
          expect.objectContaining({
            errors: [expect.stringContaining('CTXKIT_LLM_TIMEOUT')],
            reason: expect.stringContaining('not called again before 2025-01-01T00:01:00.000Z'),
          }),
        ]);
        let history = history2;
        for (let turn = 0; turn < 3; turn++) {
          history = [
            ...history,
            { role: 'assistant', content: 'Noted.' },
            { role: 'user', content: `Change ${turn}: Portland.` },
          ];
          clock += 1000;
          const later = await timed(() => strategy.composePayload('sys', history, []));
          expect(later.ms).toBeLessThan(50);
          expect(later.value.messages.slice(2)).toEqual(history);
          expect(pending(later.value)).toEqual({
            reason: 'backing-off',
            from: 1,
            through: history.length - 1,
            retryAt: Date.UTC(2025, 0, 1, 0, 1),
            message: expect.stringContaining('not called before 2025-01-01T00:01:00.000Z'),
          });
        }
        expect(llm.requests).toHaveLength(1);
        expect(warnings().slice(2)).toEqual(
          Array.from({ length: 3 }, () =>
            expect.stringMatching(
              new RegExp(
                String.raw`composed without the extraction of messages 1–\d+: the extraction model failed` +
                  String.raw` or timed out on the last call`,
              ),
            ),
          ),
        );

        // Past the back-off the model is asked again, for every message not read since, in the background:
        // a model that failed is waited for once, not once per back-off.
        clock = Date.UTC(2025, 0, 1, 0, 1);
        const retried = await timed(() => strategy.composePayload('sys', history, []));
        expect(retried.ms).toBeLessThan(50);
        expect(pending(retried.value)).toMatchObject({
          reason: 'late',
          message: expect.stringContaining('this retry runs in the background without being waited for'),
        });
        expect(llm.requests).toHaveLength(2);
        expect(String(llm.requests[1]!.messages[1]!.content)).toContain('On May 20th 2024.');
        expect(String(llm.requests[1]!.messages[1]!.content)).toContain('Change 2: Portland.');
        await strategy.whenIdle();
      },
    );
  });

  describe('#onTurnComplete', () => {
    it('extracts a user message the payload has not seen yet', async () => {
      const { strategy, llm } = setup({ script: ['{"destination":"Seattle"}'] });
      await strategy.onTurnComplete(history1);
      expect(await strategy.getState()).toEqual({ destination: 'Seattle' });
      await strategy.composePayload('sys', history1, []);
      expect(llm!.requests).toHaveLength(1);
    });
  });

  describe('#store', () => {
    it('persists the state per agent and session (kind entities) and a new instance reloads it', async () => {
      const store = new MemoryContextStore();
      const first = setup({ script: ['{"destination":"Seattle"}'], store });
      await first.strategy.composePayload('sys', history1, []);
      expect(
        await store.get({ agentId: 'booking-agent', sessionId: 's1', kind: 'entities', name: 'state' }),
      ).toMatchObject({ state: { destination: 'Seattle' }, processedThrough: 0 });
      const second = setup({ script: ['{"date":"2024-05-20"}'], store });
      expect(await second.strategy.getState()).toEqual({ destination: 'Seattle' });
      await second.strategy.composePayload('sys', history2, []);
      expect(second.llm!.requests).toHaveLength(1);
      expect(await second.strategy.getState()).toEqual({ destination: 'Seattle', date: '2024-05-20' });
      expect((await second.strategy.getVersions()).map((v) => v.version)).toEqual([1, 2]);
    });

    it(
      'keeps a stored state whose fingerprint names no message of the history (a fingerprint format another ' +
        'version wrote): reads the newest user message again, loses nothing',
      async () => {
        const store = new MemoryContextStore();
        const key = { agentId: 'booking-agent', sessionId: 's1', kind: 'entities' as const, name: 'state' };
        const first = setup({ script: ['{"destination":"Seattle"}', '{"date":"2024-05-20"}'], store });
        await first.strategy.composePayload('sys', history1, []);
        await first.strategy.composePayload('sys', history2, []);
        const written = (await store.get(key)) as { processedThrough: number; processedFingerprint: string };
        expect(written.processedThrough).toBe(2);
        // A 32-bit FNV-1a fingerprint with the text's length, as earlier versions wrote it.
        await store.set(key, { ...written, processedFingerprint: `${'On May 20th 2024.'.length}:9e3c1f07` });
        const second = setup({ script: ['{}'], store });
        const payload = await second.strategy.composePayload('sys', history2, []);
        expect(second.llm!.requests).toHaveLength(1);
        expect(JSON.stringify(second.llm!.requests[0]!.messages)).toContain('On May 20th 2024.');
        expect(JSON.stringify(second.llm!.requests[0]!.messages)).not.toContain('I want to fly to Seattle.');
        expect(await second.strategy.getState()).toEqual({ destination: 'Seattle', date: '2024-05-20' });
        expect((await second.strategy.getVersions()).map((v) => v.version)).toEqual([1, 2]);
        expect(payload.stats.extra!['entities']).toMatchObject({
          version: 2,
          state: { destination: 'Seattle', date: '2024-05-20' },
        });
        // The read point is written again in the current format: the next payload reads nothing again.
        expect(((await store.get(key)) as { processedFingerprint: string }).processedFingerprint).not.toBe(
          `${'On May 20th 2024.'.length}:9e3c1f07`,
        );
        await second.strategy.composePayload('sys', history2, []);
        expect(second.llm!.requests).toHaveLength(1);
      },
    );

    it('keeps two sessions over one store apart', async () => {
      const store = new MemoryContextStore();
      const a = setup({ script: ['{"destination":"Seattle"}'], store, sessionId: 'conversation-a' });
      const b = setup({ script: ['{"destination":"Paris"}'], store, sessionId: 'conversation-b' });
      await Promise.all([
        a.strategy.composePayload('sys', history1, []),
        b.strategy.composePayload('sys', history1, []),
      ]);
      expect(await a.strategy.getState()).toEqual({ destination: 'Seattle' });
      expect(await b.strategy.getState()).toEqual({ destination: 'Paris' });
      const reloadedA = setup({ store, sessionId: 'conversation-a' });
      expect(await reloadedA.strategy.getState()).toEqual({ destination: 'Seattle' });
    });
  });

  describe('#concurrency', () => {
    it('serialises concurrent turns on one session: one extraction per user message, versions in order', async () => {
      const { strategy, llm } = setup({ script: ['{"destination":"Seattle"}', '{"date":"2024-05-20"}'] });
      await Promise.all([
        strategy.composePayload('sys', history1, []),
        strategy.composePayload('sys', history2, []),
        strategy.onTurnComplete(history2),
      ]);
      expect(llm!.requests).toHaveLength(2);
      expect((await strategy.getVersions()).map((v) => [v.version, v.sourceMessageIndex])).toEqual([
        [1, 0],
        [2, 2],
      ]);
    });

    it('keeps working in memory and warns when the store fails mid-write', async () => {
      const store = new MemoryContextStore();
      store.setIfVersion = () => Promise.reject(new Error('disk full'));
      const { strategy, events } = setup({ script: ['{"destination":"Seattle"}'], store });
      const payload = await strategy.composePayload('sys', history1, []);
      expect(await strategy.getState()).toEqual({ destination: 'Seattle' });
      expect(payload.messages[1]!.content).toContain('"destination": "Seattle"');
      expect(events.find((event) => event.name === 'strategy-warning')!.payload['message']).toMatch(
        /could not be saved.*disk full/,
      );
    });
  });

  describe('#createStrategy', () => {
    it('rejects a bad state schema when the agent loads', () => {
      const { context } = createConformanceContext('s', {}, undefined);
      expect(() =>
        createStrategy({ stateSchema: { type: 'object', properties: { date: { type: 'date' } } } }, context),
      ).toThrow(ConfigSchemaError);
    });

    it('rejects an invalid config with every issue', () => {
      const { context } = createConformanceContext('s', {}, undefined);
      try {
        createStrategy({ stateSchema, recentTurns: 0, bogus: true }, context);
        throw new Error('expected a ConfigValidationError');
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigValidationError);
        expect((error as ConfigValidationError).issues).toHaveLength(2);
      }
    });

    it('exposes the state through hasEntityState', () => {
      const { strategy } = setup({ llm: 'none' });
      expect(hasEntityState(strategy)).toBe(true);
      expect(hasEntityState({ composePayload: jest.fn(), onTurnComplete: jest.fn() })).toBe(false);
    });
  });
});
