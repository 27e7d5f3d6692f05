import { CtxkitError } from './ctxkit-error';
import { ErrorCodes } from './error-codes';

function closest(wanted: string, available: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of available) {
    const distance = levenshtein(wanted, candidate);
    if (distance < bestDistance) {
      bestDistance = distance;
      best = candidate;
    }
  }
  return best !== undefined && bestDistance <= Math.max(3, Math.floor(wanted.length / 3)) ? best : undefined;
}

function levenshtein(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const current = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
      previous = current;
    }
  }
  return row[b.length]!;
}

/** An agent names a `pluginId` that no discovered plugin has. Lists the ids that exist. */
export class PluginNotFoundError extends CtxkitError {
  constructor(pluginId: string, available: readonly string[], file = '<inline>') {
    const suggestion = closest(pluginId, available);
    super({
      code: ErrorCodes.PLUGIN_NOT_FOUND,
      category: 'user',
      message: `No context strategy plugin with id "${pluginId}" (${file}#/contextStrategy/pluginId). Available: ${
        available.length ? available.join(', ') : '(none)'
      }.${suggestion ? ` Did you mean "${suggestion}"?` : ''}`,
      fix: 'Use one of the available ids, or add the directory holding the plugin to pluginDirs.',
      details: { pluginId, available: [...available], file, pointer: '/contextStrategy/pluginId', suggestion },
    });
  }
}

/** Two plugins declare the same id. Names both sources. */
export class DuplicatePluginError extends CtxkitError {
  constructor(pluginId: string, first: string, second: string) {
    super({
      code: ErrorCodes.DUPLICATE_PLUGIN,
      category: 'plugin',
      message: `Plugin id "${pluginId}" is declared twice: ${first} and ${second}.`,
      fix: 'Give each plugin a unique id (third-party plugins should carry their own prefix).',
      details: { pluginId, sources: [first, second] },
    });
  }
}

/** A plugin's entry module could not be loaded or exports no strategy factory. */
export class PluginLoadError extends CtxkitError {
  constructor(pluginId: string, entry: string, problem: string, cause?: unknown) {
    super({
      code: ErrorCodes.PLUGIN_LOAD_FAILED,
      category: 'plugin',
      message: `${pluginId}: cannot load entry ${entry}: ${problem}.`,
      fix: 'Build the plugin (npm run build) and export `createStrategy` (or a default factory) from its entry.',
      details: { pluginId, entry, problem },
      cause,
    });
  }
}

/** An id, entry, ref or store key would escape its directory or is not of the allowed form. */
export class UnsafePathError extends CtxkitError {
  constructor(what: string, value: string, rule: string) {
    super({
      code: ErrorCodes.PLUGIN_PATH_UNSAFE,
      category: 'user',
      message: `Unsafe ${what} ${JSON.stringify(value)}: ${rule}.`,
      fix: 'Use lowercase letters, digits and "-" for ids; keep plugin entries inside the plugin directory.',
      details: { what, value, rule },
    });
  }
}
