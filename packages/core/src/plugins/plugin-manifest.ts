import type { MemoryRole } from '../composer/memory-frame';
import type { JsonSchema } from '../contracts/tool-definition';
import type { DeclaredPin } from '../pins/declared-pin';

/**
 * A strategy plugin's `plugin.json`, as validated by `schemas/plugin-manifest.schema.json`.
 * @see docs/03-plugin-json.md
 */
export interface PluginManifest {
  /** Unique id, lowercase letters and digits joined by single hyphens (`std-sliding-window-strategy`). */
  id: string;
  name: string;
  /** Semver version. */
  version: string;
  kind: 'context-strategy';
  /** Entry module relative to the plugin directory (`./dist/index.js`). */
  entry: string;
  /** JSON Schema of the agent's `contextStrategy.config`; the single source of defaults. */
  configSchema: JsonSchema;
  description?: string;
  /** `ctxkit`: semver range of `@ctxkit/core` the plugin supports. */
  engines?: { ctxkit?: string };
}

/**
 * An agent's `plugin.json`, as validated by `schemas/agent-manifest.schema.json`. Keys not listed
 * here are kept (the kernel and hosts use `tools`, `llm`, ...).
 * @see docs/03-plugin-json.md
 */
export interface AgentManifest {
  id: string;
  name?: string;
  description?: string;
  /** The agent's model; the strategy's `model` unless its config names one. */
  model?: string;
  systemPrompt?: string;
  /** Shorter system prompt for small-context mode. */
  compactSystemPrompt?: string;
  /** Tools still sent in small-context mode. */
  essentialTools?: string[];
  /** Window (tokens) below which small-context modes switch on; 16384 when absent. */
  smallContextThreshold?: number;
  /** Pins every session of the agent starts with (see docs/14-controlling-what-survives.md). */
  pins?: DeclaredPin[];
  /** Offer the model the `pin_context` and `unpin_context` tools. @default false */
  pinTool?: boolean;
  /** Share of the strategy's available budget the pins may take together. @default 0.25 */
  pinShare?: number;
  /**
   * Where the pinned block is sent: `user`, in its own user message after the system messages, framed
   * as a quoted record of the conversation; `system`, in the system message after the system prompt,
   * with its authority. @default 'user'
   */
  pinRole?: MemoryRole;
  /** Absent: `std-sliding-window-strategy` with `{}`. */
  contextStrategy?: {
    type: 'plugin';
    pluginId: string;
    config?: Record<string, unknown>;
  };
  [key: string]: unknown;
}

/** The strategy an agent gets when its manifest has no `contextStrategy`. */
export const DEFAULT_STRATEGY_ID = 'std-sliding-window-strategy';
