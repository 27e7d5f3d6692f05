import type { ChatMessage } from '@ctxkit/core';
import { createConformanceContext, ScriptedLLMClient } from '@ctxkit/core/testing';

import { createStrategy } from '../create-entity-extraction-strategy';

const stateSchema = {
  type: 'object',
  properties: {
    user_id: { type: 'string', pattern: '^[a-z]+_[a-z]+_[0-9]+$' },
    reservation_ids: {
      type: 'array',
      items: { type: 'string', pattern: '^[A-Z0-9]{6}$' },
      'x-ctxkit-keys': ['reservations'],
    },
    cabin: { type: 'string', enum: ['economy', 'business'] },
  },
  additionalProperties: false,
};

const turn: ChatMessage[] = [
  { role: 'user', content: 'I am mia_li_3668, business please.' },
  {
    role: 'assistant',
    content: null,
    tool_calls: [
      { id: 'c1', type: 'function', function: { name: 'get_user_details', arguments: '{"user_id":"mia_li_3668"}' } },
    ],
  },
  { role: 'tool', tool_call_id: 'c1', content: '{"reservations": ["NO6JO3", "AIXC49"]}' },
];

describe('extraction of tool results', () => {
  describe('#offline', () => {
    it('reads a tool result as it arrives: a new version, event and processed point at the result', async () => {
      const { context, events } = createConformanceContext(
        's1',
        { agentId: 'a', strategyId: 'std-entity-extraction-strategy', llm: undefined },
        undefined,
      );
      const strategy = createStrategy({ stateSchema }, context);
      await strategy.composePayload('sys', turn.slice(0, 1), []);
      await strategy.composePayload('sys', turn, []);
      expect(await strategy.getState()).toEqual({
        user_id: 'mia_li_3668',
        cabin: 'business',
        reservation_ids: ['NO6JO3', 'AIXC49'],
      });
      const versions = await strategy.getVersions();
      expect(versions.map((v) => [v.version, v.sourceMessageIndex, v.diff.map((d) => d.field)])).toEqual([
        [1, 0, ['user_id', 'cabin']],
        [2, 2, ['reservation_ids']],
      ]);
      const updates = events
        .filter((event) => event.name === 'entities-updated')
        .map((event) => event.payload['sourceMessageIndex']);
      expect(updates).toEqual([0, 2]);
      expect(await strategy.getStateAt(1)).toEqual({ user_id: 'mia_li_3668', cabin: 'business' });
      // Composing the same history again reads nothing new; a correction in a later turn replaces the cabin.
      await strategy.composePayload('sys', turn, []);
      expect(await strategy.getVersion()).toBe(2);
      await strategy.composePayload(
        'sys',
        [...turn, { role: 'assistant', content: 'Done.' }, { role: 'user', content: 'Actually make it economy.' }],
        [],
      );
      expect((await strategy.getVersions())[2]!.diff).toEqual([
        { field: 'cabin', before: 'business', after: 'economy' },
      ]);
    });

    it('resumes after a tool result in a rewritten history by its fingerprint', async () => {
      const { context } = createConformanceContext(
        's2',
        { agentId: 'a', strategyId: 'std-entity-extraction-strategy', llm: undefined },
        undefined,
      );
      const strategy = createStrategy({ stateSchema }, context);
      await strategy.composePayload('sys', turn, []);
      const rewritten: ChatMessage[] = [
        { role: 'user', content: 'summary of earlier turns' },
        ...turn.slice(1),
        { role: 'user', content: 'and NO6JO3 in economy' },
      ];
      await strategy.composePayload('sys', rewritten, []);
      const versions = await strategy.getVersions();
      expect(versions.map((v) => v.sourceMessageIndex)).toEqual([2, 3]);
      expect(versions[1]!.diff).toEqual([{ field: 'cabin', before: 'business', after: 'economy' }]);
    });
  });

  describe('#llm', () => {
    it('calls the model once per user message and shows it the tool results since the previous one', async () => {
      const llm = new ScriptedLLMClient(['{"user_id": "mia_li_3668"}', '{"reservation_ids": ["NO6JO3"]}'], {
        name: 'scripted',
      });
      const { context } = createConformanceContext(
        's3',
        { agentId: 'a', strategyId: 'std-entity-extraction-strategy', llm },
        undefined,
      );
      const strategy = createStrategy({ stateSchema }, context);
      await strategy.composePayload('sys', turn.slice(0, 1), []);
      await strategy.composePayload('sys', turn, []);
      expect(llm.requests).toHaveLength(1);
      await strategy.composePayload(
        'sys',
        [...turn, { role: 'assistant', content: 'Which one?' }, { role: 'user', content: 'The first.' }],
        [],
      );
      expect(llm.requests).toHaveLength(2);
      const prompt = String(llm.requests[1]!.messages[1]!.content);
      expect(prompt).toContain(
        '<tool_result index="2" name="get_user_details">\n{"reservations": ["NO6JO3", "AIXC49"]}\n</tool_result>',
      );
      expect(prompt).toContain('<new_user_message index="4">\nThe first.\n</new_user_message>');
      expect((await strategy.getVersions()).map((v) => v.sourceMessageIndex)).toEqual([0, 4]);
    });
  });
});
