import type { ToolDefinition } from '@ctxkit/core';

import { OfferedToolLists, offeredTools } from './offered-tools';

const tool = (name: string, description = name): ToolDefinition => ({
  type: 'function',
  function: { name, description },
});

describe('offeredTools', () => {
  const own = [tool('tool_output_cache'), tool('compact')];

  it('adds the offered definitions after the caller tools', () => {
    expect(offeredTools({ callerTools: [tool('bash')], own, offer: own }).map((t) => t.function.name)).toEqual([
      'bash',
      'tool_output_cache',
      'compact',
    ]);
  });

  it(
    'leaves out its own definitions a host passes in until they are offered, and keeps a user tool of the same ' +
      'name',
    () => {
      const passed = structuredClone(own);
      expect(
        offeredTools({ callerTools: [tool('bash'), ...passed], own, offer: [own[1]!] }).map((t) => t.function.name),
      ).toEqual(['bash', 'compact']);
      const userTool = tool('tool_output_cache', 'my own');
      expect(offeredTools({ callerTools: [userTool], own, offer: [] })).toEqual([userTool]);
      expect(offeredTools({ callerTools: [userTool], own, offer: own })).toEqual([userTool, own[1]]);
    },
  );
});

describe('OfferedToolLists', () => {
  const own = [tool('tool_output_cache'), tool('compact')];

  it(
    'gives the same list while the caller passes the same tool objects, and a new one when they or the choice ' +
      'change',
    () => {
      const lists = new OfferedToolLists();
      const bash = tool('bash');
      const first = lists.list({ callerTools: [bash], own, offer: own }, true);
      expect(lists.list({ callerTools: [bash], own: [...own], offer: [...own] }, true)).toBe(first);
      const without = lists.list({ callerTools: [bash], own, offer: [] }, false);
      expect(without.map((t) => t.function.name)).toEqual(['bash']);
      expect(lists.list({ callerTools: [bash], own, offer: own }, true)).toBe(first);
      const other = lists.list({ callerTools: [tool('bash')], own, offer: own }, true);
      expect(other).not.toBe(first);
      expect(other).toEqual(first);
      expect(
        lists.list({ callerTools: [bash, tool('grep')], own, offer: own }, true).map((t) => t.function.name),
      ).toEqual(['bash', 'grep', 'tool_output_cache', 'compact']);
    },
  );
});
