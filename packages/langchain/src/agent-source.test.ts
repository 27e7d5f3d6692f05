import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { type AgentSource, AgentSourceError, createContextRuntime, type CtxkitError, openAgent } from '@ctxkit/core';

import { DEFAULT_LANGCHAIN_AGENT_ID, LANGCHAIN_AGENT_SOURCE } from './agent-source';

/** The middleware's agent, as it opens it. */
const resolveAgent = (source: AgentSource) => openAgent(source, LANGCHAIN_AGENT_SOURCE);

describe("the middleware's agent source", () => {
  test(
    'declares an agent from a plugin id and config (defaults applied); dispose releases the runtime it ' + 'created',
    async () => {
      const { agent, dispose } = await resolveAgent({
        pluginId: 'std-sliding-window-strategy',
        config: { maxContextTokens: 5000 },
      });
      expect(agent.id).toBe(DEFAULT_LANGCHAIN_AGENT_ID);
      expect(agent.strategyId).toBe('std-sliding-window-strategy');
      expect(agent.config).toMatchObject({ maxContextTokens: 5000 });
      await dispose();
      await dispose();
      expect(agent.disposed).toBe(true);
    },
  );

  test('loads the agent a plugin.json declares', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ctxkit-langchain-'));
    try {
      const file = path.join(dir, 'plugin.json');
      fs.writeFileSync(
        file,
        JSON.stringify({
          id: 'support-agent',
          contextStrategy: {
            type: 'plugin',
            pluginId: 'std-sliding-window-strategy',
            config: { maxContextTokens: 6000 },
          },
        }),
      );
      const { agent, dispose } = await resolveAgent({ manifest: file });
      expect(agent.id).toBe('support-agent');
      expect(agent.config).toMatchObject({ maxContextTokens: 6000 });
      await dispose();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test(
    "a caller's agent is used as is and left to the caller; an agent loaded on a caller's runtime is disposed " +
      'alone',
    async () => {
      const runtime = await createContextRuntime();
      const own = await runtime.loadAgent({ id: 'own-agent' });
      const given = await resolveAgent({ agent: own });
      expect(given.agent).toBe(own);
      await given.dispose();
      expect(own.disposed).toBe(false);
      const loaded = await resolveAgent({ pluginId: 'std-sliding-window-strategy', agentId: 'second-agent', runtime });
      await loaded.dispose();
      expect(loaded.agent.disposed).toBe(true);
      expect(own.disposed).toBe(false);
      await runtime.dispose();
    },
  );

  test.each([
    [
      'agent with runtimeOptions',
      async () => ({ agent: await (await createContextRuntime()).loadAgent({ id: 'x-agent' }), runtimeOptions: {} }),
      /not used with agent/,
    ],
    [
      'runtime with runtimeOptions',
      async () => ({
        pluginId: 'std-sliding-window-strategy',
        runtime: await createContextRuntime(),
        runtimeOptions: {},
      }),
      /given together/,
    ],
  ])('%s is rejected with the fix', async (_name, options, pattern) => {
    const error = await resolveAgent(await options()).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(AgentSourceError);
    expect((error as CtxkitError).message).toMatch(pattern);
  });

  test('an invalid manifest fails with the runtime typed error', async () => {
    const error = await resolveAgent({ manifest: { id: 'Not Valid' } }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect((error as CtxkitError).code).toBe('CTXKIT_MANIFEST_INVALID');
  });
});
