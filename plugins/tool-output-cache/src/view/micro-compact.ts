import type { ToolMessage } from '@ctxkit/core';
import { contentText } from '@ctxkit/core/strategy-kit';

/**
 * When old tool results are replaced: `under-pressure` only when the payload would not fit otherwise
 * (then oldest first, only as many as needed); `always` at every payload, whether it fits or not.
 */
export type MicroCompactWhen = 'under-pressure' | 'always';

/** Micro-compact settings (layer 1 of the three-layer compaction). */
export interface MicroCompactConfig {
  /**
   * Replace old tool results with `[Previous: used {tool_name}]`.
   * @default true
   */
  enabled?: boolean;
  /**
   * `under-pressure`: old results are replaced only when the payload would not fit otherwise, oldest
   * first and only as many as needed (a cached output becomes its `[tool output trimmed; ref=…]`
   * placeholder, which names the ref). `always`: every result older than the newest `keepRecent`
   * is replaced at every payload, as in the original layer 1.
   * @default 'under-pressure'
   */
  when?: MicroCompactWhen;
  /**
   * The newest tool results kept as they are.
   * @default 3
   */
  keepRecent?: number;
  /**
   * Only results longer than this many characters are replaced.
   * @default 100
   */
  minContentLength?: number;
}

/** {@link MicroCompactConfig} with defaults applied. */
export interface ResolvedMicroCompactConfig {
  enabled: boolean;
  when: MicroCompactWhen;
  keepRecent: number;
  minContentLength: number;
}

/** Defaults of {@link MicroCompactConfig}: under pressure only; the newest 3 kept, results over 100 characters. */
export const MICRO_COMPACT_DEFAULTS: Readonly<ResolvedMicroCompactConfig> = Object.freeze({ enabled: true, when: 'under-pressure', keepRecent: 3, minContentLength: 100 });

/** Applies the defaults of {@link MicroCompactConfig}. */
export function resolveMicroCompactConfig(config: MicroCompactConfig | undefined): ResolvedMicroCompactConfig {
  return {
    enabled: config?.enabled ?? MICRO_COMPACT_DEFAULTS.enabled,
    when: config?.when ?? MICRO_COMPACT_DEFAULTS.when,
    keepRecent: Math.max(0, Math.floor(config?.keepRecent ?? MICRO_COMPACT_DEFAULTS.keepRecent)),
    minContentLength: Math.max(0, Math.floor(config?.minContentLength ?? MICRO_COMPACT_DEFAULTS.minContentLength)),
  };
}

/** The micro-compact placeholder. */
export function microCompactPlaceholder(toolName: string): string {
  return `[Previous: used ${toolName}]`;
}

const PLACEHOLDER = /^\[Previous: used [^\]\n]*\]$/;

/** True when a tool message shows a micro-compact placeholder instead of its output. */
export function isMicroCompacted(message: Readonly<ToolMessage>): boolean {
  return PLACEHOLDER.test(contentText(message.content));
}
