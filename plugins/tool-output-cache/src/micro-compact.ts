import type { ToolMessage } from '@ctxkit/core';
import { contentText } from '@ctxkit/core';
import type { ReductionLog } from './reduction-log';
import { toolCallNames } from './tool-call-names';
import type { ViewEntry } from './view-entry';

/** Micro-compact settings (seed 001 layer 1). */
export interface MicroCompactConfig {
  /**
   * Replace old tool results with `[Previous: used {tool_name}]`.
   * @default true
   */
  enabled?: boolean;
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
  keepRecent: number;
  minContentLength: number;
}

/** Defaults of {@link MicroCompactConfig} (seed 001: KEEP_RECENT = 3, results over 100 characters). */
export const MICRO_COMPACT_DEFAULTS: Readonly<ResolvedMicroCompactConfig> = Object.freeze({ enabled: true, keepRecent: 3, minContentLength: 100 });

/** Applies the defaults of {@link MicroCompactConfig}. */
export function resolveMicroCompactConfig(config: MicroCompactConfig | undefined): ResolvedMicroCompactConfig {
  return {
    enabled: config?.enabled ?? MICRO_COMPACT_DEFAULTS.enabled,
    keepRecent: Math.max(0, Math.floor(config?.keepRecent ?? MICRO_COMPACT_DEFAULTS.keepRecent)),
    minContentLength: Math.max(0, Math.floor(config?.minContentLength ?? MICRO_COMPACT_DEFAULTS.minContentLength)),
  };
}

/** The micro-compact placeholder of seed 001. */
export function microCompactPlaceholder(toolName: string): string {
  return `[Previous: used ${toolName}]`;
}

/**
 * Seed 001 layer 1: every tool result older than the newest `keepRecent` whose original content is
 * longer than `minContentLength` characters becomes `[Previous: used {tool_name}]` (the name from
 * the call it answers). The copy keeps `output_ref`, so the full output stays expandable. Returns a
 * new array; entries it does not change are shared.
 *
 * @param originalLength the length of a tool message's original content (before any view)
 * @param withContent makes the copy (the strategy reuses copies across turns so that counts stay cached)
 */
export function microCompact(
  entries: ReadonlyArray<ViewEntry>,
  config: ResolvedMicroCompactConfig,
  originalLength: (entry: ViewEntry) => number,
  log?: ReductionLog,
  withContent: (message: ToolMessage, content: string) => ToolMessage = (message, content) => ({ ...message, content }),
): ViewEntry[] {
  const result = [...entries];
  if (!config.enabled) return result;
  const toolIndexes: number[] = [];
  entries.forEach((entry, index) => {
    if (entry.message.role === 'tool') toolIndexes.push(index);
  });
  if (toolIndexes.length <= config.keepRecent) return result;
  const names = toolCallNames(entries.map((entry) => entry.message));
  for (const index of toolIndexes.slice(0, toolIndexes.length - config.keepRecent)) {
    const entry = entries[index]!;
    if (originalLength(entry) <= config.minContentLength) continue;
    const message = entry.message as ToolMessage;
    const placeholder = microCompactPlaceholder(names.get(index) ?? 'unknown');
    if (contentText(message.content) === placeholder) continue;
    const copy = withContent(message, placeholder);
    result[index] = { ...entry, message: copy };
    if (entry.source !== null && log) {
      log.add('micro-compacted', { from: entry.source }, {
        reason: `tool result older than the newest ${config.keepRecent}`,
        recoverableFrom: message.output_ref ? 'tool-output-cache' : 'history',
        ...(message.output_ref ? { refs: [message.output_ref.id] } : {}),
      });
    }
  }
  return result;
}
