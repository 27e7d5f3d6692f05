import * as path from 'node:path';

import { createContextRuntime } from '@ctxkit/core';

// The plugin as users get it: discovered by the runtime (this package declares `"ctxkit": { "plugin" }`
// and is installed in the workspace), named by an agent's plugin.json, loaded through the loader and DI.
describe('example-pinned-messages-strategy through the runtime', () => {
  it('loads from an agent manifest and keeps the pinned message', async () => {
    const runtime = await createContextRuntime({ pluginDirs: [path.join(__dirname, '..')] });
    expect(runtime.listPlugins().map((plugin) => plugin.id)).toContain('example-pinned-messages-strategy');
    const agent = await runtime.loadAgent(path.join(__dirname, '..', 'agent.plugin.json'));
    try {
      expect(agent.strategyId).toBe('example-pinned-messages-strategy');
      expect(agent.config).toMatchObject({ maxContextTokens: 2048, maxPinnedShare: 0.3, pinMarkers: ['📌', '[pin]'] });
      const history = [
        { role: 'user' as const, content: '[pin] The customer id is mia_li_3668.' },
        { role: 'assistant' as const, content: 'Thanks.' },
        ...Array.from({ length: 40 }, (_, i) => ({
          role: (i % 2 === 0 ? 'user' : 'assistant') as 'user' | 'assistant',
          content: `message ${i} ${'filler text '.repeat(30)}`,
        })),
      ];
      const payload = await agent.forSession('conversation-1').composePayload('You are a support agent.', history, []);
      expect(JSON.stringify(payload.messages[1])).toContain('mia_li_3668');
      expect(payload.stats.strategyId).toBe('example-pinned-messages-strategy');
    } finally {
      await agent.dispose();
    }
  });
});
