import * as fs from 'node:fs';
import * as path from 'node:path';

import { createContextRuntime, hasCompactionHooks, hasContributedTools } from '@ctxkit/core';

import { createStrategy } from './index';

const manifest = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'plugin.json'), 'utf8')) as {
  id: string;
  name: string;
  version: string;
  configSchema: Record<string, unknown>;
};

describe('plugin.json', () => {
  describe('#configSchema', () => {
    it('loads through the runtime with the documented defaults and exposes the hooks and tools', async () => {
      const runtime = await createContextRuntime({ discoverInstalled: false });
      runtime.registerStrategy(
        { id: manifest.id, name: manifest.name, version: manifest.version, configSchema: manifest.configSchema },
        createStrategy,
      );
      const agent = await runtime.loadAgent({
        id: 'coder',
        contextStrategy: { type: 'plugin', pluginId: manifest.id, config: { model: 'local-16k' } },
      });
      const manager = agent.contextManager;
      expect(hasCompactionHooks(manager) && hasContributedTools(manager)).toBe(true);
      const payload = await manager.composePayload('system', [{ role: 'user', content: 'hi' }], []);
      expect(payload.stats.strategyId).toBe('std-tool-output-cache-strategy');
      // Nothing is shortened yet and no model is there to write a summary: no definition is sent,
      // but all three are registered (a host registers contributed tools once).
      expect(payload.tools).toEqual([]);
      expect(
        (manager as { contributedTools(): Array<{ definition: { function: { name: string } } }> })
          .contributedTools()
          .map((tool) => tool.definition.function.name),
      ).toEqual(['tool_output_cache', 'tool_output_cache_grep', 'compact']);
      await agent.dispose();
    });

    it('rejects a config field the schema does not know', async () => {
      const runtime = await createContextRuntime({ discoverInstalled: false });
      runtime.registerStrategy({ id: manifest.id, configSchema: manifest.configSchema }, createStrategy);
      await expect(
        runtime.loadAgent({
          id: 'coder',
          contextStrategy: { type: 'plugin', pluginId: manifest.id, config: { compaction: { treshold: 0.5 } } },
        }),
      ).rejects.toMatchObject({ code: 'CTXKIT_CONFIG_INVALID' });
    });
  });
});
