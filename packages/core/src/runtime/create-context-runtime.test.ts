import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { SUMMARIZING_AGENT_MANIFEST } from '../__fixtures__/summarizing-agent-manifest';
import type { ChatMessage } from '../contracts/chat-message';
import {
  hasCompactionHooks,
  hasContributedTools,
  hasDispose,
  hasWhenIdle,
  type IContextManager,
} from '../contracts/context-manager';
import type { ILLMClient } from '../contracts/llm-client';
import type { LLMPayload } from '../contracts/llm-payload';
import {
  IAgentId,
  IContextManager as IContextManagerToken,
  IContextStore,
  IEventBus,
  ILLMClient as ILLMClientToken,
  IModelRegistry,
  IStrategyContext,
  ITokenCounter,
} from '../di/injection-tokens';
import { BudgetExceededError } from '../errors/budget-exceeded-error';
import { ConfigSchemaError } from '../errors/config-schema-error';
import { ConfigValidationError } from '../errors/config-validation-error';
import { DisposedError } from '../errors/disposed-error';
import { DuplicatePluginError } from '../errors/duplicate-plugin-error';
import { LLMClientInUseError } from '../errors/llm-client-in-use-error';
import { ManifestValidationError } from '../errors/manifest-validation-error';
import { PluginNotFoundError } from '../errors/plugin-not-found-error';
import { StoreKeyError } from '../errors/store-key-error';
import { StrategyError } from '../errors/strategy-error';
import { UnsafePathError } from '../errors/unsafe-path-error';
import type { StrategyContext, StrategyFactory } from '../plugins/strategy-plugin';
import { MemoryContextStore } from '../stores/memory-context-store';
import { createContextRuntime } from './create-context-runtime';

/** A strategy that remembers how many turns it saw, so tests can tell instances apart. */
interface CountingStrategy extends IContextManager {
  turns: number;
  context: StrategyContext;
  config: Record<string, unknown>;
}

const payload = (messages: ChatMessage[]): LLMPayload => ({ messages, tools: [], stats: {} }) as unknown as LLMPayload;

const counting: StrategyFactory = (config, context) => {
  const strategy: CountingStrategy = {
    turns: 0,
    context,
    config,
    async composePayload(systemPrompt, history) {
      return payload([{ role: 'system', content: `${systemPrompt} turns=${strategy.turns}` }, ...history]);
    },
    async onTurnComplete() {
      strategy.turns += 1;
    },
  };
  return strategy;
};

const strategyOf = (manager: IContextManager) => (manager as unknown as { strategy: CountingStrategy }).strategy;

const REPO_ROOT = path.resolve(__dirname, '..', '..', '..', '..');

async function isolatedRuntime(options: Parameters<typeof createContextRuntime>[0] = {}) {
  const runtime = await createContextRuntime({ discoverInstalled: false, ...options });
  runtime.registerStrategy(
    {
      id: 'counting-strategy',
      name: 'Counting',
      version: '1.0.0',
      configSchema: {
        type: 'object',
        additionalProperties: false,
        properties: { keep: { type: 'integer', minimum: 1, default: 4 }, model: { type: 'string' } },
      },
    },
    counting,
  );
  return runtime;
}

const agentManifest = (id: string, config: Record<string, unknown> = {}) => ({
  id,
  contextStrategy: { type: 'plugin', pluginId: 'counting-strategy', config },
});

/**
 * The strategy's client is the agent's, seen through the helper-model telemetry: same name, model
 * and kind, and each call reaches the agent's client with the request unchanged.
 */
async function expectAgentClient(seen: ILLMClient | undefined, agentClient: ILLMClient): Promise<void> {
  expect(seen).toMatchObject({
    name: agentClient.name,
    defaultModel: agentClient.defaultModel,
    offline: agentClient.offline,
  });
  const request = { messages: [{ role: 'user' as const, content: 'Summarize.' }] };
  const complete = jest.spyOn(agentClient, 'complete');
  await expect(seen!.complete(request)).rejects.toThrow('unused');
  expect(complete).toHaveBeenCalledWith(request);
  complete.mockRestore();
}

describe('createContextRuntime', () => {
  describe('#listPlugins', () => {
    it('lists discovered and in-process plugins with id, name, version and source', async () => {
      const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ctxkit-runtime-')));
      try {
        fs.writeFileSync(
          path.join(dir, 'index.js'),
          'exports.createStrategy = () => ({ async composePayload() { return {}; }, async onTurnComplete() {} });',
        );
        fs.writeFileSync(
          path.join(dir, 'plugin.json'),
          JSON.stringify({
            id: 'disk-strategy',
            name: 'On disk',
            version: '2.0.0',
            kind: 'context-strategy',
            entry: './index.js',
            configSchema: { type: 'object' },
          }),
        );
        const runtime = await isolatedRuntime({ pluginDirs: [dir] });
        expect(runtime.listPlugins()).toEqual([
          { id: 'counting-strategy', name: 'Counting', version: '1.0.0', source: 'in-process' },
          { id: 'disk-strategy', name: 'On disk', version: '2.0.0', source: `directory ${dir}`, directory: dir },
        ]);
        expect(runtime.getPlugin('disk-strategy')).toMatchObject({
          configSchema: { type: 'object' },
          manifestPath: path.join(dir, 'plugin.json'),
        });
        expect(runtime.getPlugin('counting-strategy')?.configSchema).toMatchObject({
          properties: { keep: { default: 4 } },
        });
        expect(runtime.getPlugin('nope')).toBeUndefined();
        const agent = await runtime.loadAgent({
          id: 'disk-agent',
          contextStrategy: { type: 'plugin', pluginId: 'disk-strategy' },
        });
        expect(agent.strategyId).toBe('disk-strategy');
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });

    it("finds the repo's own plugins that ship a plugin.json through the workspace links", async () => {
      const runtime = await createContextRuntime({ searchFrom: [REPO_ROOT] });
      const expected: string[] = [];
      for (const name of fs.readdirSync(path.join(REPO_ROOT, 'plugins'))) {
        const pkgFile = path.join(REPO_ROOT, 'plugins', name, 'package.json');
        if (!fs.existsSync(pkgFile)) continue;
        const pluginField = (JSON.parse(fs.readFileSync(pkgFile, 'utf8')) as { ctxkit?: { plugin?: string } }).ctxkit
          ?.plugin;
        const manifestFile = pluginField && path.join(REPO_ROOT, 'plugins', name, pluginField);
        if (manifestFile && fs.existsSync(manifestFile))
          expected.push((JSON.parse(fs.readFileSync(manifestFile, 'utf8')) as { id: string }).id);
      }
      const found = [
        ...runtime.listPlugins().map((plugin) => plugin.id),
        ...runtime.problems.map((problem) => problem.id),
      ];
      for (const id of expected) expect(found).toContain(id);
      for (const plugin of runtime.listPlugins().filter((summary) => expected.includes(summary.id))) {
        expect(plugin.source).toMatch(/^package @ctxkit\/strategy-/);
      }
    });
  });

  describe('#registerStrategy', () => {
    it('rejects an invalid id, a duplicate id and a broken configSchema', async () => {
      const runtime = await isolatedRuntime();
      expect(() => runtime.registerStrategy({ id: '../evil' }, counting)).toThrow(UnsafePathError);
      expect(() => runtime.registerStrategy({ id: 'counting-strategy' }, counting)).toThrow(DuplicatePluginError);
      expect(() =>
        runtime.registerStrategy({ id: 'broken-schema', configSchema: { type: 'objekt' } }, counting),
      ).toThrow(ConfigSchemaError);
    });
  });

  describe('#loadAgent', () => {
    it(
      "loads an agent with its id, strategy, model, a validated config with defaults, and leaves the caller's " +
        'config untouched',
      async () => {
        const runtime = await isolatedRuntime();
        const config = Object.freeze({ model: 'gpt-4o-mini' });
        const manifest = Object.freeze({
          ...agentManifest('support-agent'),
          contextStrategy: Object.freeze({ type: 'plugin', pluginId: 'counting-strategy', config }),
        });
        const agent = await runtime.loadAgent(manifest);
        expect(agent.id).toBe('support-agent');
        expect(agent.strategyId).toBe('counting-strategy');
        expect(agent.model).toBe('gpt-4o-mini');
        expect(agent.config).toEqual({ model: 'gpt-4o-mini', keep: 4 });
        expect(config).toEqual({ model: 'gpt-4o-mini' });
        expect(Object.isFrozen(agent.config)).toBe(true);
        expect(strategyOf(agent.contextManager).config).toEqual({ model: 'gpt-4o-mini', keep: 4 });
      },
    );

    it('takes the model from the manifest, else gpt-4o', async () => {
      const runtime = await isolatedRuntime();
      expect((await runtime.loadAgent({ ...agentManifest('a'), model: 'gpt-4.1' })).model).toBe('gpt-4.1');
      expect((await runtime.loadAgent(agentManifest('b'))).model).toBe('gpt-4o');
    });

    it('reads a manifest from a file and names the file in errors', async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ctxkit-agent-'));
      try {
        const runtime = await isolatedRuntime();
        fs.writeFileSync(path.join(dir, 'plugin.json'), JSON.stringify(agentManifest('file-agent')));
        expect((await runtime.loadAgent(path.join(dir, 'plugin.json'))).id).toBe('file-agent');
        fs.writeFileSync(path.join(dir, 'bad.json'), JSON.stringify(agentManifest('file-agent', { keep: 0 })));
        await expect(runtime.loadAgent(path.join(dir, 'bad.json'))).rejects.toMatchObject({
          code: 'CTXKIT_CONFIG_INVALID',
          issues: [
            {
              file: path.join(dir, 'bad.json'),
              pointer: '/contextStrategy/config/keep',
              message: 'must be >= 1',
              expected: 'minimum 1',
            },
          ],
        });
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });

    it.each([
      ['a missing id', { contextStrategy: { type: 'plugin', pluginId: 'counting-strategy' } }, ['/id']],
      ['an id with a slash', { id: 'team/agent' }, ['/id']],
      [
        'a wrong type',
        { id: 'a', contextStrategy: { type: 'module', pluginId: 'counting-strategy' } },
        ['/contextStrategy/type'],
      ],
      [
        'a config that is not an object',
        { id: 'a', contextStrategy: { type: 'plugin', pluginId: 'counting-strategy', config: 'fast' } },
        ['/contextStrategy/config'],
      ],
      [
        'a missing pluginId and an unknown key',
        { id: 'a', contextStrategy: { type: 'plugin', plugin: 'x' } },
        ['/contextStrategy/plugin', '/contextStrategy/pluginId'],
      ],
    ])('rejects %s with ManifestValidationError naming every pointer', async (_label, manifest, pointers) => {
      const runtime = await isolatedRuntime();
      const error = await runtime.loadAgent(manifest).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ManifestValidationError);
      expect((error as ManifestValidationError).issues.map((issue) => issue.pointer).sort()).toEqual(pointers);
      for (const issue of (error as ManifestValidationError).issues) expect(issue.expected.length).toBeGreaterThan(0);
    });

    it('rejects a strategy plugin manifest given as an agent manifest', async () => {
      const runtime = await isolatedRuntime();
      await expect(runtime.loadAgent({ id: 'x', kind: 'context-strategy', entry: './i.js' })).rejects.toBeInstanceOf(
        ManifestValidationError,
      );
    });

    it('rejects an unknown pluginId with PluginNotFoundError listing the ids that exist', async () => {
      const runtime = await isolatedRuntime();
      const error = (await runtime
        .loadAgent({ id: 'a', contextStrategy: { type: 'plugin', pluginId: 'countin-strategy' } })
        .catch((caught: unknown) => caught)) as PluginNotFoundError;
      expect(error).toBeInstanceOf(PluginNotFoundError);
      expect(error.details).toMatchObject({
        pluginId: 'countin-strategy',
        available: ['counting-strategy'],
        pointer: '/contextStrategy/pluginId',
        suggestion: 'counting-strategy',
      });
    });

    it('loads the README example manifest unchanged, or names the ids that exist until its plugin lands', async () => {
      const runtime = await createContextRuntime({ searchFrom: [REPO_ROOT] });
      runtime.registerStrategy({ id: 'local-fallback-strategy' }, counting);
      const outcome = await runtime.loadAgent(structuredClone(SUMMARIZING_AGENT_MANIFEST)).then(
        (agent) => ({ agent }),
        (error: unknown) => ({ error }),
      );
      if ('agent' in outcome) {
        expect(outcome.agent.strategyId).toBe('std-summarization-strategy');
        expect(outcome.agent.config).toMatchObject({ compressionModel: 'gemini-1.5-flash', threshold: 20 });
        await outcome.agent.dispose();
      } else {
        expect(outcome.error).toBeInstanceOf(PluginNotFoundError);
        const available = (outcome.error as PluginNotFoundError).details.available as string[];
        expect(available.length).toBeGreaterThan(0);
        expect(available).not.toContain('std-summarization-strategy');
      }
    });

    it('gives an agent without contextStrategy the sliding window with {}', async () => {
      const runtime = await createContextRuntime({ discoverInstalled: false });
      runtime.registerStrategy({ id: 'std-sliding-window-strategy' }, counting);
      const agent = await runtime.loadAgent({ id: 'plain-agent' });
      expect(agent.strategyId).toBe('std-sliding-window-strategy');
      expect(agent.config).toEqual({});
      const bare = await createContextRuntime({ discoverInstalled: false });
      await expect(bare.loadAgent({ id: 'plain-agent' })).rejects.toMatchObject({
        code: 'CTXKIT_PLUGIN_NOT_FOUND',
        details: { pluginId: 'std-sliding-window-strategy' },
      });
    });
  });

  describe('the agent model', () => {
    const withModel = {
      type: 'object',
      properties: {
        model: { type: 'string', default: 'gpt-4o' },
        maxContextTokens: { type: ['integer', 'null'], default: null },
      },
    };

    it(
      "gives a strategy whose config names no model the agent's top-level model, before the schema " + 'default',
      async () => {
        const runtime = await createContextRuntime({ discoverInstalled: false });
        runtime.registerStrategy({ id: 'modelled-strategy', configSchema: withModel }, counting);
        const manifest = Object.freeze({
          id: 'local-agent',
          model: 'local-8k',
          contextStrategy: Object.freeze({ type: 'plugin', pluginId: 'modelled-strategy' }),
        });
        const agent = await runtime.loadAgent(manifest);
        expect(agent.config).toEqual({ model: 'local-8k', maxContextTokens: null });
        expect(agent.model).toBe('local-8k');
        expect(manifest.contextStrategy).toEqual({ type: 'plugin', pluginId: 'modelled-strategy' });
      },
    );

    it("keeps the config's own model over the agent's", async () => {
      const runtime = await createContextRuntime({ discoverInstalled: false });
      runtime.registerStrategy({ id: 'modelled-strategy', configSchema: withModel }, counting);
      const agent = await runtime.loadAgent({
        id: 'a',
        model: 'local-8k',
        contextStrategy: { type: 'plugin', pluginId: 'modelled-strategy', config: { model: 'gpt-4o-mini' } },
      });
      expect(agent.config.model).toBe('gpt-4o-mini');
    });

    it('adds no model to a strategy whose schema has none', async () => {
      const runtime = await createContextRuntime({ discoverInstalled: false });
      runtime.registerStrategy(
        { id: 'plain-strategy', configSchema: { type: 'object', additionalProperties: false, properties: {} } },
        counting,
      );
      const agent = await runtime.loadAgent({
        id: 'a',
        model: 'local-8k',
        contextStrategy: { type: 'plugin', pluginId: 'plain-strategy' },
      });
      expect(agent.config).toEqual({});
      expect(agent.model).toBe('local-8k');
    });
  });

  describe('DI container', () => {
    it(
      "registers the agent's services under the injection tokens, IContextManager resolving the default " + 'session',
      async () => {
        const store = new MemoryContextStore();
        const llm: ILLMClient = {
          name: 'scripted',
          defaultModel: 'gpt-4o-mini',
          offline: true,
          complete: async () => {
            throw new Error('unused');
          },
        };
        const runtime = await isolatedRuntime({ store, llm });
        const agent = await runtime.loadAgent(agentManifest('di-agent'));
        const { container } = agent;
        expect(container.resolve(IContextManagerToken)).toBe(agent.contextManager);
        expect(container.resolve(IAgentId)).toBe('di-agent');
        expect(container.resolve(IEventBus)).toBe(agent.events);
        expect(container.resolve(IContextStore)).toBe(store);
        expect(container.resolve(ILLMClientToken)).toBe(llm);
        expect(container.resolve(IModelRegistry)).toBe(runtime.models);
        expect(container.resolve(ITokenCounter)).toBe(runtime.counterFor('gpt-4o'));
        expect(container.resolve(IStrategyContext)).toMatchObject({
          agentId: 'di-agent',
          sessionId: 'default',
          strategyId: 'counting-strategy',
          model: 'gpt-4o',
        });
        await expectAgentClient(strategyOf(agent.contextManager).context.llm, llm);
      },
    );

    it(
      'leaves ILLMClient unregistered when none is configured, and keeps each agent in its own ' + 'container',
      async () => {
        const runtime = await isolatedRuntime();
        const first = await runtime.loadAgent(agentManifest('first'));
        const second = await runtime.loadAgent(agentManifest('second'));
        expect(first.container.isRegistered(ILLMClientToken, true)).toBe(false);
        expect(strategyOf(first.contextManager).context.llm).toBeUndefined();
        expect(first.container.resolve(IEventBus)).not.toBe(second.container.resolve(IEventBus));
        expect(first.container.resolve(IAgentId)).toBe('first');
        expect(second.container.resolve(IAgentId)).toBe('second');
      },
    );
  });

  describe('one language model client', () => {
    /**
     * A strategy that picks its summarizer when created, as the standard ones do: the client, else an offline fallback.
     */
    const choosing: StrategyFactory = (config, context) => {
      const summarizer = context.llm ? `llm:${context.llm.name}` : 'offline';
      return Object.assign(counting(config, context) as IContextManager, { summarizer });
    };
    const client = (name: string): ILLMClient => ({
      name,
      defaultModel: 'gpt-4o-mini',
      offline: true,
      complete: async () => {
        throw new Error('unused');
      },
    });
    const summarizerOf = (manager: IContextManager) =>
      (manager as unknown as { strategy: { summarizer: string } }).strategy.summarizer;

    async function choosingRuntime(options: Parameters<typeof createContextRuntime>[0] = {}) {
      const runtime = await createContextRuntime({ discoverInstalled: false, ...options });
      runtime.registerStrategy({ id: 'choosing-strategy' }, choosing);
      return runtime;
    }

    it(
      'says once, at the first call, that a strategy which looked for a client found none and works ' + 'offline',
      async () => {
        const runtime = await choosingRuntime();
        const agent = await runtime.loadAgent({
          id: 'offline-agent',
          contextStrategy: { type: 'plugin', pluginId: 'choosing-strategy' },
        });
        const warnings: Array<{ code?: string; message: string; sessionId: string }> = [];
        agent.events.on('strategy-warning', (event) => warnings.push(event));
        expect(summarizerOf(agent.contextManager)).toBe('offline');
        expect(warnings).toEqual([]);
        await agent.contextManager.composePayload('sys', [], []);
        await agent.forSession('other').composePayload('sys', [], []);
        expect(warnings).toEqual([
          expect.objectContaining({ code: 'CTXKIT_LLM_NOT_CONFIGURED', sessionId: 'default' }),
        ]);
        expect(warnings[0]!.message).toMatch(
          new RegExp(
            String.raw`choosing-strategy looked for a language model client and agent "offline-agent" has` +
              String.raw` none: it works on its offline fallback`,
          ),
        );
      },
    );

    it('stays silent for a strategy that never looks for a client, and when the agent has one', async () => {
      const runtime = await isolatedRuntime({ llm: client('configured') });
      const withClient = await runtime.loadAgent(agentManifest('with-client'));
      runtime.registerStrategy({ id: 'choosing-strategy' }, choosing);
      const chooser = await runtime.loadAgent({
        id: 'chooser',
        contextStrategy: { type: 'plugin', pluginId: 'choosing-strategy' },
      });
      const bare = await (
        await isolatedRuntime()
      ).loadAgent({ id: 'bare', contextStrategy: { type: 'plugin', pluginId: 'counting-strategy' } });
      const warnings: unknown[] = [];
      for (const agent of [withClient, chooser, bare])
        agent.events.on('strategy-warning', (event) => warnings.push(event));
      await withClient.contextManager.composePayload('sys', [], []);
      await chooser.contextManager.composePayload('sys', [], []);
      await bare.contextManager.composePayload('sys', [], []);
      expect(summarizerOf(chooser.contextManager)).toBe('llm:configured');
      expect(warnings).toEqual([]);
    });

    it(
      "useLLM makes a client the agent's one: the container's, and the strategy's, created again before its first " +
        'use',
      async () => {
        const runtime = await choosingRuntime();
        const agent = await runtime.loadAgent({
          id: 'rewired',
          contextStrategy: { type: 'plugin', pluginId: 'choosing-strategy' },
        });
        agent.forSession('other');
        const before = agent.contextManager;
        const model = client('agent-model');
        agent.useLLM(model);
        expect(agent.llm).toBe(model);
        expect(agent.container.resolve(ILLMClientToken)).toBe(model);
        expect(agent.contextManager).not.toBe(before);
        expect(agent.container.resolve(IContextManagerToken)).toBe(agent.contextManager);
        expect(summarizerOf(agent.contextManager)).toBe('llm:agent-model');
        expect(summarizerOf(agent.forSession('other'))).toBe('llm:agent-model');
        await expectAgentClient((agent.container.resolve(IStrategyContext) as StrategyContext).llm, model);
        const same = agent.contextManager;
        agent.useLLM(model);
        expect(agent.contextManager).toBe(same);
        await agent.dispose();
      },
    );

    it(
      'keeps a session that never looked for a client, and refuses another client once a session worked with the ' +
        'first',
      async () => {
        const runtime = await isolatedRuntime();
        const plain = await runtime.loadAgent(agentManifest('plain'));
        await plain.contextManager.onTurnComplete([]);
        const kept = plain.contextManager;
        plain.useLLM(client('late'));
        expect(plain.contextManager).toBe(kept);
        expect(strategyOf(plain.contextManager).turns).toBe(1);

        runtime.registerStrategy({ id: 'choosing-strategy' }, choosing);
        const used = await runtime.loadAgent({
          id: 'used',
          contextStrategy: { type: 'plugin', pluginId: 'choosing-strategy' },
        });
        await used.contextManager.composePayload('sys', [], []);
        const error = (() => {
          try {
            used.useLLM(client('second'));
          } catch (caught) {
            return caught as LLMClientInUseError;
          }
          return undefined;
        })();
        expect(error).toBeInstanceOf(LLMClientInUseError);
        expect(error?.code).toBe('CTXKIT_LLM_CLIENT_IN_USE');
        expect(error?.message).toContain(
          'Agent "used" already works with no language model client (its offline fallback) in session "default"; it ' +
            'cannot switch to client second.',
        );
        expect(used.llm).toBeUndefined();
      },
    );
  });

  describe('sessions', () => {
    it('keeps two agents and two sessions of one agent apart', async () => {
      const runtime = await isolatedRuntime();
      const a = await runtime.loadAgent(agentManifest('agent-a'));
      const b = await runtime.loadAgent(agentManifest('agent-b'));
      await a.contextManager.onTurnComplete([]);
      await a.contextManager.onTurnComplete([]);
      await a.forSession('conversation-42').onTurnComplete([]);
      expect(strategyOf(a.contextManager).turns).toBe(2);
      expect(strategyOf(a.forSession('conversation-42')).turns).toBe(1);
      expect(strategyOf(b.contextManager).turns).toBe(0);
      expect(a.forSession('conversation-42')).toBe(a.forSession('conversation-42'));
      expect(strategyOf(a.forSession('conversation-42')).context).toMatchObject({
        agentId: 'agent-a',
        sessionId: 'conversation-42',
      });
      const composed = await a.forSession('conversation-42').composePayload('sys', [], []);
      expect(composed.messages[0]).toEqual({ role: 'system', content: 'sys turns=1' });
      expect(a.sessions().sort()).toEqual(['conversation-42', 'default']);
    });

    it('gives each session its own copy of the config', async () => {
      const runtime = await isolatedRuntime();
      const agent = await runtime.loadAgent(agentManifest('cfg-agent'));
      strategyOf(agent.forSession('one')).config.keep = 99;
      expect(strategyOf(agent.forSession('two')).config.keep).toBe(4);
    });

    it(
      'takes the session ids real apps use (paths, URLs, e-mail addresses, Unicode) as separate sessions, and ' +
        'refuses an empty one',
      async () => {
        const runtime = await isolatedRuntime();
        const agent = await runtime.loadAgent(agentManifest('s-agent'));
        const ids = ['tenant/conv-1', '../other', 'ana@example.com', 'https://chat.example/c/42?x=1', '会話-1'];
        for (const id of ids) expect(agent.forSession(id)).toBe(agent.forSession(id));
        expect(new Set(ids.map((id) => agent.forSession(id))).size).toBe(ids.length);
        expect(agent.sessions()).toEqual(expect.arrayContaining(ids));
        expect(() => agent.forSession('')).toThrow(StoreKeyError);
      },
    );

    it('runs onTurnComplete calls of one session one after another', async () => {
      const order: string[] = [];
      const runtime = await createContextRuntime({ discoverInstalled: false });
      runtime.registerStrategy({ id: 'slow-strategy' }, () => ({
        async composePayload() {
          return payload([]);
        },
        async onTurnComplete(history) {
          const label = String(history.length);
          order.push(`start ${label}`);
          await new Promise((resolve) => setImmediate(resolve));
          order.push(`end ${label}`);
        },
      }));
      const agent = await runtime.loadAgent({
        id: 'slow-agent',
        contextStrategy: { type: 'plugin', pluginId: 'slow-strategy' },
      });
      const user: ChatMessage = { role: 'user', content: 'hi' };
      await Promise.all([
        agent.contextManager.onTurnComplete([user]),
        agent.contextManager.onTurnComplete([user, user]),
      ]);
      expect(order).toEqual(['start 1', 'end 1', 'start 2', 'end 2']);
    });

    it('supports asynchronous factories', async () => {
      const runtime = await createContextRuntime({ discoverInstalled: false });
      runtime.registerStrategy({ id: 'async-strategy' }, async (config, context) => counting(config, context));
      const agent = await runtime.loadAgent({
        id: 'async-agent',
        contextStrategy: { type: 'plugin', pluginId: 'async-strategy' },
      });
      const session = await agent.openSession('later');
      await session.onTurnComplete([]);
      expect(strategyOf(session).turns).toBe(1);
    });
  });

  describe('plugin boundary', () => {
    const throwing =
      (what: unknown): StrategyFactory =>
      () => ({
        async composePayload() {
          throw what;
        },
        async onTurnComplete() {
          throw new TypeError('cannot read properties of undefined');
        },
      });

    it("re-throws a plugin's own error as StrategyError with pluginId, agentId, method and cause", async () => {
      const runtime = await createContextRuntime({ discoverInstalled: false });
      const cause = new RangeError('index out of range');
      runtime.registerStrategy({ id: 'buggy-strategy' }, throwing(cause));
      const agent = await runtime.loadAgent({
        id: 'victim',
        contextStrategy: { type: 'plugin', pluginId: 'buggy-strategy' },
      });
      const error = (await agent.contextManager
        .composePayload('s', [], [])
        .catch((caught: unknown) => caught)) as StrategyError;
      expect(error).toBeInstanceOf(StrategyError);
      expect(error.details).toEqual({ pluginId: 'buggy-strategy', agentId: 'victim', method: 'composePayload' });
      expect(error.cause).toBe(cause);
      await expect(agent.forSession('x').onTurnComplete([])).rejects.toMatchObject({
        code: 'CTXKIT_STRATEGY_ERROR',
        details: { method: 'onTurnComplete' },
      });
    });

    it('lets a ctxkit error thrown by a plugin pass through untouched', async () => {
      const runtime = await createContextRuntime({ discoverInstalled: false });
      const budget = new BudgetExceededError('budget-strategy', {
        available: 10,
        required: 20,
        sections: { system: 20 },
      });
      runtime.registerStrategy({ id: 'budget-strategy' }, throwing(budget));
      const agent = await runtime.loadAgent({
        id: 'tight',
        contextStrategy: { type: 'plugin', pluginId: 'budget-strategy' },
      });
      await expect(agent.contextManager.composePayload('s', [], [])).rejects.toBe(budget);
    });

    it('wraps a factory that throws or returns something else, when the agent loads', async () => {
      const runtime = await createContextRuntime({ discoverInstalled: false });
      runtime.registerStrategy({ id: 'explodes-strategy' }, () => {
        throw new Error('no config today');
      });
      runtime.registerStrategy({ id: 'empty-strategy' }, () => ({}) as IContextManager);
      await expect(
        runtime.loadAgent({ id: 'a', contextStrategy: { type: 'plugin', pluginId: 'explodes-strategy' } }),
      ).rejects.toMatchObject({
        code: 'CTXKIT_STRATEGY_ERROR',
        details: { pluginId: 'explodes-strategy', agentId: 'a', method: 'createStrategy' },
      });
      await expect(
        runtime.loadAgent({ id: 'b', contextStrategy: { type: 'plugin', pluginId: 'empty-strategy' } }),
      ).rejects.toBeInstanceOf(StrategyError);
    });

    it("keeps the strategy's optional capabilities visible and wrapped, and hides those it lacks", async () => {
      const runtime = await createContextRuntime({ discoverInstalled: false });
      runtime.registerStrategy({ id: 'capable-strategy' }, (config, context) => ({
        ...counting(config, context),
        contributedTools: () => {
          throw new Error('tool list broken');
        },
        whenIdle: async () => undefined,
      }));
      const agent = await runtime.loadAgent({
        id: 'capable',
        contextStrategy: { type: 'plugin', pluginId: 'capable-strategy' },
      });
      const manager = agent.forSession('s');
      expect(hasContributedTools(manager)).toBe(true);
      expect(hasWhenIdle(manager)).toBe(true);
      expect(hasCompactionHooks(manager)).toBe(false);
      expect(hasDispose(manager)).toBe(false);
      expect(() => (manager as { contributedTools(): unknown }).contributedTools()).toThrow(StrategyError);
      await expect((manager as { whenIdle(): Promise<void> }).whenIdle()).resolves.toBeUndefined();
    });
  });

  describe('#dispose', () => {
    it("disposes every session's strategy once, is safe twice, and refuses later use", async () => {
      const disposed: string[] = [];
      const runtime = await createContextRuntime({ discoverInstalled: false });
      runtime.registerStrategy({ id: 'disposable-strategy' }, (config, context) => ({
        ...counting(config, context),
        dispose: () => {
          disposed.push(context.sessionId);
        },
      }));
      const agent = await runtime.loadAgent({
        id: 'd',
        contextStrategy: { type: 'plugin', pluginId: 'disposable-strategy' },
      });
      const other = agent.forSession('other');
      expect(runtime.agents()).toEqual([agent]);
      await agent.dispose();
      await agent.dispose();
      expect(disposed.sort()).toEqual(['default', 'other']);
      expect(agent.disposed).toBe(true);
      expect(runtime.agents()).toEqual([]);
      expect(() => agent.forSession('third')).toThrow(DisposedError);
      expect(() => agent.contextManager).toThrow(DisposedError);
      await expect(other.composePayload('s', [], [])).rejects.toBeInstanceOf(DisposedError);
    });

    it('wraps a throwing dispose as StrategyError after disposing the other sessions', async () => {
      const disposed: string[] = [];
      const runtime = await createContextRuntime({ discoverInstalled: false });
      runtime.registerStrategy({ id: 'bad-dispose-strategy' }, (config, context) => ({
        ...counting(config, context),
        dispose: () => {
          disposed.push(context.sessionId);
          if (context.sessionId === 'default') throw new Error('handle leak');
        },
      }));
      const agent = await runtime.loadAgent({
        id: 'e',
        contextStrategy: { type: 'plugin', pluginId: 'bad-dispose-strategy' },
      });
      agent.forSession('other');
      await expect(runtime.dispose()).rejects.toMatchObject({
        code: 'CTXKIT_STRATEGY_ERROR',
        details: { method: 'dispose' },
      });
      expect(disposed.sort()).toEqual(['default', 'other']);
    });
  });

  describe('config errors', () => {
    it("reports a config violating the plugin's schema with pointer and expected", async () => {
      const runtime = await isolatedRuntime();
      const error = (await runtime
        .loadAgent(agentManifest('x', { keep: 'many', extra: true }))
        .catch((caught: unknown) => caught)) as ConfigValidationError;
      expect(error).toBeInstanceOf(ConfigValidationError);
      expect(error.issues.map((issue) => [issue.pointer, issue.expected])).toEqual([
        ['/contextStrategy/config/extra', 'only the known properties: keep, model'],
        ['/contextStrategy/config/keep', 'type integer'],
      ]);
    });
  });
});
