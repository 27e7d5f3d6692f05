import 'reflect-metadata';

import { container as globalContainer, type DependencyContainer } from 'tsyringe';

import type { IContextStore } from '../contracts/context-store';
import type { ILLMClient } from '../contracts/llm-client';
import type { ITextEmbedder } from '../contracts/text-embedder';
import { IModelRegistry as IModelRegistryToken } from '../di/injection-tokens';
import { DuplicatePluginError } from '../errors/duplicate-plugin-error';
import { ManifestValidationError } from '../errors/manifest-validation-error';
import { PluginNotFoundError } from '../errors/plugin-not-found-error';
import { freezeDeep } from '../messages/freeze-deep';
import { ModelRegistry } from '../models/default-model-registry';
import type { IModelRegistry } from '../models/model-registry';
import { compileConfigSchema } from '../plugins/compile-config-schema';
import { discoverPlugins, type PluginDiscoveryProblem } from '../plugins/discover-plugins';
import { loadPluginFactory, validatePluginConfig } from '../plugins/load-plugin';
import { assertPluginId } from '../plugins/plugin-id';
import { type AgentManifest, DEFAULT_STRATEGY_ID, type PluginManifest } from '../plugins/plugin-manifest';
import type { PluginRecord } from '../plugins/plugin-record';
import type { StrategyFactory } from '../plugins/strategy-plugin';
import { detectManifestKind, readManifestFile, validateManifest } from '../plugins/validate-manifest';
import { MemoryContextStore } from '../stores/memory-context-store';
import { createTokenCounter } from '../token-counting/create-token-counter';
import type { ITokenCounter, TokenizerBackend } from '../token-counting/token-counter';
import { sessionTraceMaxBytes } from '../trace/session-trace';
import { type AgentHandle, createAgentHandle } from './agent-handle';
import type {
  ContextRuntime,
  ContextRuntimeOptions,
  InProcessStrategyManifest,
  LoadAgentOptions,
  PluginInfo,
  PluginSummary,
} from './context-runtime';

/** The model a strategy counts for when neither its config nor the manifest names one. */
export const DEFAULT_AGENT_MODEL = 'gpt-4o';

class Runtime implements ContextRuntime {
  readonly models: IModelRegistry;
  readonly store: IContextStore;
  readonly problems: ReadonlyArray<PluginDiscoveryProblem>;
  private readonly plugins = new Map<string, PluginRecord>();
  private readonly root: DependencyContainer;
  private readonly llm: ILLMClient | undefined;
  private readonly embedder: ITextEmbedder | undefined;
  private readonly backend: 'auto' | TokenizerBackend;
  private readonly now: () => number;
  private readonly sessionTrace: number | undefined;
  private readonly loaded = new Set<AgentHandle>();

  constructor(options: ContextRuntimeOptions, discovered: PluginRecord[], problems: PluginDiscoveryProblem[]) {
    this.models = new ModelRegistry();
    for (const model of options.models ?? []) this.models.register(model);
    this.store = options.store ?? new MemoryContextStore();
    this.llm = options.llm;
    this.embedder = options.embedder;
    this.backend = options.counterBackend ?? 'auto';
    this.now = options.now ?? Date.now;
    this.sessionTrace = sessionTraceMaxBytes(options.sessionTrace);
    this.problems = Object.freeze([...problems]);
    for (const record of discovered) this.plugins.set(record.id, record);
    // The root holds only stateless shared services; each agent gets a child container.
    this.root = globalContainer.createChildContainer();
    this.root.register(IModelRegistryToken, { useValue: this.models });
  }

  listPlugins(): PluginSummary[] {
    return [...this.plugins.values()]
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .map((record) => summaryOf(record));
  }

  getPlugin(id: string): PluginInfo | undefined {
    const record = this.plugins.get(id);
    if (!record) return undefined;
    return {
      ...summaryOf(record),
      configSchema: record.manifest.configSchema,
      ...(record.manifestPath !== undefined ? { manifestPath: record.manifestPath } : {}),
    };
  }

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any config: a factory's parameter is contravariant
  registerStrategy(manifest: InProcessStrategyManifest, factory: StrategyFactory<any>): PluginSummary {
    assertPluginId(manifest?.id, 'plugin id');
    if (typeof factory !== 'function')
      throw new TypeError('registerStrategy: factory must be a function (config, context) => IContextManager');
    const existing = this.plugins.get(manifest.id);
    if (existing) throw new DuplicatePluginError(manifest.id, existing.source, 'in-process');
    const configSchema = structuredClone(manifest.configSchema ?? { type: 'object' });
    compileConfigSchema(configSchema, manifest.id, `in-process ${manifest.id}#/configSchema`);
    const full: PluginManifest = {
      id: manifest.id,
      name: manifest.name ?? manifest.id,
      version: manifest.version ?? '0.0.0',
      kind: 'context-strategy',
      entry: '(in-process)',
      configSchema,
      ...(manifest.description !== undefined ? { description: manifest.description } : {}),
    };
    const record: PluginRecord = {
      id: full.id,
      name: full.name,
      version: full.version,
      description: full.description,
      source: 'in-process',
      manifest: Object.freeze(full),
      factory,
    };
    this.plugins.set(record.id, record);
    return this.listPlugins().find((summary) => summary.id === record.id)!;
  }

  counterFor(model: string): ITokenCounter {
    return createTokenCounter({ model, backend: this.backend, registry: this.models });
  }

  async loadAgent(manifestOrPath: unknown, options: LoadAgentOptions = {}): Promise<AgentHandle> {
    const { manifest, file } = this.readAgentManifest(manifestOrPath, options.file);
    const pluginId = manifest.contextStrategy?.pluginId ?? DEFAULT_STRATEGY_ID;
    const record = this.plugins.get(pluginId);
    if (!record) {
      const problem = this.problems.find((candidate) => candidate.id === pluginId);
      if (problem) throw problem.error;
      throw new PluginNotFoundError(pluginId, [...this.plugins.keys()].sort(), file);
    }
    const config = freezeDeep(
      validatePluginConfig(
        record,
        inheritAgentModel(record.manifest.configSchema, manifest.contextStrategy?.config, manifest.model),
        file,
      ),
    );
    const factory = loadPluginFactory(record, manifest.id);
    const model =
      typeof config.model === 'string' && config.model ? config.model : (manifest.model ?? DEFAULT_AGENT_MODEL);
    const traceBytes =
      options.sessionTrace !== undefined ? sessionTraceMaxBytes(options.sessionTrace) : this.sessionTrace;
    const agent: AgentHandle = await createAgentHandle({
      manifest,
      strategyId: record.id,
      config,
      factory,
      model,
      root: this.root,
      models: this.models,
      store: options.store ?? this.store,
      llm: options.llm ?? this.llm,
      ...((options.embedder ?? this.embedder) !== undefined ? { embedder: (options.embedder ?? this.embedder)! } : {}),
      counterFor: (name) => this.counterFor(name),
      now: this.now,
      ...(traceBytes !== undefined ? { sessionTraceMaxBytes: traceBytes } : {}),
      onDispose: () => this.loaded.delete(agent),
    });
    this.loaded.add(agent);
    return agent;
  }

  agents(): AgentHandle[] {
    return [...this.loaded];
  }

  async dispose(): Promise<void> {
    let firstError: unknown;
    for (const agent of [...this.loaded]) {
      await agent.dispose().catch((error: unknown) => {
        firstError ??= error;
      });
    }
    if (firstError !== undefined) throw firstError;
  }

  private readAgentManifest(
    manifestOrPath: unknown,
    fileName: string | undefined,
  ): { manifest: Readonly<AgentManifest>; file: string } {
    let file = fileName ?? '<inline>';
    let parsed = manifestOrPath;
    if (typeof manifestOrPath === 'string') {
      const read = readManifestFile(manifestOrPath);
      file = read.file;
      if (read.issue) throw new ManifestValidationError(file, [read.issue]);
      parsed = read.manifest;
    }
    if (detectManifestKind(parsed) === 'plugin') {
      throw new ManifestValidationError(file, [
        {
          file,
          pointer: '',
          message: 'this is a strategy plugin manifest, not an agent manifest',
          expected: 'an agent manifest ({ id, contextStrategy? })',
        },
      ]);
    }
    const result = validateManifest(parsed, { kind: 'agent', file });
    if (!result.valid) throw new ManifestValidationError(file, result.errors);
    return { manifest: freezeDeep(structuredClone(parsed) as AgentManifest), file };
  }
}

function summaryOf(record: PluginRecord): PluginSummary {
  return {
    id: record.id,
    name: record.name,
    version: record.version,
    source: record.source,
    ...(record.description !== undefined ? { description: record.description } : {}),
    ...(record.dir !== undefined ? { directory: record.dir } : {}),
  };
}

/**
 * Creates the ctxkit runtime: discovers plugins where the host allows them (its
 * `pluginDirs`, and installed packages declaring themselves ctxkit plugins, which includes the
 * repo's `plugins/`), builds the shared model registry (built-ins plus `models`) and token
 * counters, and loads agents, each in its own tsyringe child container.
 *
 * ```ts
 * import 'reflect-metadata';
 * const runtime = await createContextRuntime({ pluginDirs: ['./my-plugins'] });
 * const agent = await runtime.loadAgent('./agents/support/plugin.json');
 * const payload = await agent.forSession('conversation-42').composePayload(system, history, tools);
 * ```
 * @throws DuplicatePluginError (`CTXKIT_DUPLICATE_PLUGIN`) when two plugins declare one id
 * @throws ManifestValidationError (`CTXKIT_MANIFEST_INVALID`), UnsafePathError (`CTXKIT_PLUGIN_PATH_UNSAFE`) for a
 *   broken plugin in `pluginDirs`
 * @see docs/02-architecture.md, docs/03-plugin-json.md
 */
export async function createContextRuntime(options: ContextRuntimeOptions = {}): Promise<ContextRuntime> {
  const discovery = discoverPlugins({
    pluginDirs: options.pluginDirs ?? [],
    discoverInstalled: options.discoverInstalled ?? true,
    ...(options.searchFrom ? { searchFrom: options.searchFrom } : {}),
  });
  return new Runtime(options, discovery.plugins, discovery.problems);
}

/**
 * The agent's top-level `model` is the default of its strategy's `model` setting: a config that
 * names no model gets the agent's (before the schema's own default would apply). A copy is returned;
 * the manifest is never changed.
 */
function inheritAgentModel(configSchema: unknown, config: unknown, agentModel: string | undefined): unknown {
  if (!agentModel || (config !== undefined && (typeof config !== 'object' || config === null || Array.isArray(config))))
    return config;
  const properties = (configSchema as { properties?: Record<string, unknown> } | undefined)?.properties;
  if (!properties || !('model' in properties)) return config;
  const given = (config ?? {}) as Record<string, unknown>;
  return 'model' in given ? config : { ...given, model: agentModel };
}
