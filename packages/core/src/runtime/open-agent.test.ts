import { AgentSourceError } from '../errors/agent-source-error';
import { CtxkitError } from '../errors/ctxkit-error';
import { createContextRuntime } from './create-context-runtime';
import { checkAgentSource, lazyAgent, type OpenAgentOptions } from './open-agent';

const options: OpenAgentOptions = {
  adapter: 'exampleMiddleware',
  defaultAgentId: 'example-agent',
  example: "exampleMiddleware({ pluginId: 'std-sliding-window-strategy' })",
};

describe('checkAgentSource', () => {
  it.each([
    [{}, 'no strategy given'],
    [{ pluginId: 'std-sliding-window-strategy', manifest: { id: 'a' } }, 'manifest and pluginId given together'],
    [{ manifest: { id: 'a' }, config: {} }, 'config and agentId go with pluginId only'],
    [{ pluginId: '' }, 'pluginId is empty'],
    [{ agent: {} as never }, 'agent is not a loaded agent'],
  ])('refuses %j with one error class, the adapter named, and the fix', (source, problem) => {
    let thrown: unknown;
    try {
      checkAgentSource(source, options);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(AgentSourceError);
    expect(CtxkitError.isInstance(thrown) && thrown.code).toBe('CTXKIT_CONFIG_INVALID');
    expect((thrown as AgentSourceError).message).toContain(`exampleMiddleware: ${problem}.`);
    expect((thrown as AgentSourceError).details).toEqual({ adapter: 'exampleMiddleware', problem });
  });
});

describe('lazyAgent', () => {
  it('checks at once and loads the agent on the first get only, with the load options', async () => {
    expect(() =>
      lazyAgent({ pluginId: 'std-sliding-window-strategy', runtimeOptions: {}, runtime: {} as never }, options),
    ).toThrow(AgentSourceError);
    const runtime = await createContextRuntime();
    try {
      const loads: unknown[] = [];
      const loadAgent = runtime.loadAgent.bind(runtime);
      runtime.loadAgent = (manifest, loadOptions) => {
        loads.push(loadOptions);
        return loadAgent(manifest, loadOptions);
      };
      const lazy = lazyAgent(
        { runtime, pluginId: 'std-sliding-window-strategy', loadOptions: { sessionTrace: false } as never },
        options,
      );
      expect(lazy.opened).toBeUndefined();
      expect(loads).toHaveLength(0);
      const [first, second] = await Promise.all([lazy.get(), lazy.get()]);
      expect(first).toBe(second);
      expect(lazy.opened).toBe(first);
      expect(first.id).toBe('example-agent');
      expect(loads).toEqual([{ sessionTrace: false }]);
      await lazy.dispose();
      await lazy.dispose();
    } finally {
      await runtime.dispose();
    }
  });

  it('tries a failed load again on the next get', async () => {
    const lazy = lazyAgent({ pluginId: 'no-such-strategy' }, options);
    await expect(lazy.get()).rejects.toMatchObject({ code: 'CTXKIT_PLUGIN_NOT_FOUND' });
    await expect(lazy.get()).rejects.toMatchObject({ code: 'CTXKIT_PLUGIN_NOT_FOUND' });
    expect(lazy.opened).toBeUndefined();
    await lazy.dispose();
  });
});
