import type { IContextStore } from '../contracts/context-store';
import type { ILLMClient } from '../contracts/llm-client';
import type { ITextEmbedder } from '../contracts/text-embedder';
import type { JsonSchema } from '../contracts/tool-definition';
import type { ModelInfo } from '../models/model-info';
import type { IModelRegistry } from '../models/model-registry';
import type { PluginDiscoveryProblem } from '../plugins/discover-plugins';
import type { StrategyFactory } from '../plugins/strategy-plugin';
import type { ITokenCounter, TokenizerBackend } from '../token-counting/token-counter';
import type { SessionTraceSetting } from '../trace/session-trace';
import type { AgentHandle } from './agent-handle';

/** Options of `createContextRuntime`. */
export interface ContextRuntimeOptions {
  /** Directories the host allows plugins from (each a plugin dir or a dir of plugin dirs). @default [] */
  pluginDirs?: string[];
  /** Find installed packages declaring `"ctxkit": { "plugin": ... }` (the repo's plugins too). @default true */
  discoverInstalled?: boolean;
  /** Where the `node_modules` search starts. @default [process.cwd(), the directory of @ctxkit/core] */
  searchFrom?: string[];
  /**
   * The store for every agent (summaries, entity state, tool outputs, transcripts). @default a new MemoryContextStore
   */
  store?: IContextStore;
  /** The language model client for every agent; strategies use their offline fallback without one. */
  llm?: ILLMClient;
  /**
   * The text embedder for every agent: recall (`std-recall-strategy`, or `recall` on the summarization
   * and entity-extraction strategies) then finds earlier turns by meaning as well as by words.
   * Without one, recall ranks by words alone.
   */
  embedder?: ITextEmbedder;
  /** Models added to (or replacing entries of) the built-in registry. @default [] */
  models?: ModelInfo[];
  /** The tokenizer backend of every counter. @default 'auto' (gpt-tokenizer, else js-tiktoken, else heuristic) */
  counterBackend?: 'auto' | TokenizerBackend;
  /** The clock strategies see through `context.now()`. @default Date.now */
  now?: () => number;
  /**
   * A bounded trace per session, written to the store: what each compose sent, dropped, folded,
   * trimmed, pinned or recalled, by message index and ref, never message text; `ctxkit explain`
   * reads it. `true` keeps at most 262,144 bytes per session, `{ maxBytes }` another bound (at least
   * 1,024); the oldest composes go first. See docs/15-observability.md.
   * @default false
   */
  sessionTrace?: SessionTraceSetting;
}

/** Options of `runtime.loadAgent`. */
export interface LoadAgentOptions {
  /** This agent's LLM client, instead of the runtime's. */
  llm?: ILLMClient;
  /** This agent's store, instead of the runtime's. */
  store?: IContextStore;
  /** This agent's text embedder, instead of the runtime's. */
  embedder?: ITextEmbedder;
  /** The file name reported for an inline manifest. @default '<inline>' */
  file?: string;
  /** This agent's session trace setting, instead of the runtime's (`false` turns it off). */
  sessionTrace?: SessionTraceSetting;
}

/** One plugin the runtime can give agents, as `listPlugins()` shows it. */
export interface PluginSummary {
  id: string;
  name: string;
  version: string;
  /** `package <name>`, `directory <path>` or `in-process`. */
  source: string;
  description?: string;
  /** The plugin directory, for plugins found on disk (absolute, links resolved). */
  directory?: string;
}

/** Everything the runtime knows of one plugin: its summary plus its manifest's `configSchema`. */
export interface PluginInfo extends PluginSummary {
  /** A frozen copy of the plugin's config JSON Schema (the source of its defaults). */
  configSchema: Readonly<JsonSchema>;
  /** The plugin's `plugin.json`, for plugins found on disk. */
  manifestPath?: string;
}

/** The manifest part of `runtime.registerStrategy`: an id, and optionally the rest of a plugin manifest. */
export interface InProcessStrategyManifest {
  /** Plugin id, lowercase letters and digits joined by single hyphens. */
  id: string;
  /** @default the id */
  name?: string;
  /** @default '0.0.0' */
  version?: string;
  description?: string;
  /** JSON Schema of the config; its defaults are applied. @default { type: 'object' } */
  configSchema?: JsonSchema;
}

/**
 * The ctxkit runtime: the plugins it found, the shared model registry and token counters, and the
 * agents it loads.
 * @see docs/02-architecture.md
 */
export interface ContextRuntime {
  /** The model registry shared by every agent (built-ins plus `options.models`); enrich it with `register`. */
  readonly models: IModelRegistry;
  /** The default store of every agent. */
  readonly store: IContextStore;
  /** Broken installed plugins (not listed; loading an agent that names one throws its error). */
  readonly problems: ReadonlyArray<PluginDiscoveryProblem>;
  /** Every plugin agents can use, sorted by id. */
  listPlugins(): PluginSummary[];
  /** One plugin with its configSchema, or `undefined` when no plugin has that id. */
  getPlugin(id: string): PluginInfo | undefined;
  /**
   * Registers an in-process custom strategy (no package, no plugin.json file).
   * @throws UnsafePathError (`CTXKIT_PLUGIN_PATH_UNSAFE`) for an invalid id
   * @throws DuplicatePluginError (`CTXKIT_DUPLICATE_PLUGIN`) when the id exists
   * @throws ConfigSchemaError (`CTXKIT_CONFIG_SCHEMA_INVALID`) for an invalid configSchema
   */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any config: a factory's parameter is contravariant
  registerStrategy(manifest: InProcessStrategyManifest, factory: StrategyFactory<any>): PluginSummary;
  /** The shared token counter of a model (counts cached across agents). */
  counterFor(model: string): ITokenCounter;
  /**
   * Validates an agent manifest (object, path, or directory holding plugin.json), validates its
   * strategy config against the plugin's configSchema (defaults on a copy), builds the agent's
   * child container and its default session.
   * @throws ManifestValidationError (`CTXKIT_MANIFEST_INVALID`) listing every issue with file, pointer and expected
   * @throws PluginNotFoundError (`CTXKIT_PLUGIN_NOT_FOUND`) listing the ids that exist
   * @throws ConfigValidationError (`CTXKIT_CONFIG_INVALID`), ConfigSchemaError (`CTXKIT_CONFIG_SCHEMA_INVALID`)
   * @throws PluginLoadError (`CTXKIT_PLUGIN_LOAD_FAILED`), StrategyError (`CTXKIT_STRATEGY_ERROR`)
   */
  loadAgent(manifestOrPath: unknown, options?: LoadAgentOptions): Promise<AgentHandle>;
  /** The agents loaded and not disposed. */
  agents(): AgentHandle[];
  /** Disposes every agent. Safe to call twice. */
  dispose(): Promise<void>;
}
