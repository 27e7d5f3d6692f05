import { CtxkitError, ErrorCodes } from '@ctxkit/core';

/** Names derived from the strategy name the user typed. */
export interface StrategyNames {
  /** kebab-case: `pinned-note`. */
  kebab: string;
  /** PascalCase: `PinnedNote`. */
  pascal: string;
  /** camelCase: `pinnedNote`. */
  camel: string;
  /** The plugin id: `pinned-note-strategy` unless given. */
  pluginId: string;
  /** The npm package name. */
  packageName: string;
}

const ID = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/**
 * Returns `id` when it is a plugin id a scaffold can use: lowercase letters, digits and single hyphens.
 * @throws CtxkitError `CTXKIT_PLUGIN_PATH_UNSAFE`
 */
export function checkPluginId(id: string): string {
  if (!ID.test(id)) {
    throw new CtxkitError({
      code: ErrorCodes.PLUGIN_PATH_UNSAFE,
      category: 'user',
      message: `Invalid plugin id ${JSON.stringify(id)}.`,
      fix: 'Plugin ids use lowercase letters, digits and single hyphens, e.g. "acme-pinned-note-strategy".',
      details: { pluginId: id },
    });
  }
  return id;
}

/**
 * Validates and derives the names of a scaffolded strategy. Letters, digits, spaces, `_` and `-` are
 * accepted and folded to kebab-case; anything else is a typed error.
 * @throws CtxkitError `CTXKIT_PLUGIN_PATH_UNSAFE`
 */
export function strategyNames(name: string, pluginId?: string): StrategyNames {
  const kebab = name
    .trim()
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .replace(/[\s_]+/g, '-')
    .toLowerCase()
    .replace(/-strategy$/, '');
  if (!ID.test(kebab) || kebab.length > 60) {
    throw new CtxkitError({
      code: ErrorCodes.PLUGIN_PATH_UNSAFE,
      category: 'user',
      message: `Invalid strategy name ${JSON.stringify(name)}.`,
      fix: 'Use letters, digits and "-" (e.g. "pinned-note"); at most 60 characters.',
      details: { name },
    });
  }
  const id = checkPluginId(pluginId ?? `${kebab}-strategy`);
  const pascal = kebab
    .split('-')
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('');
  return {
    kebab,
    pascal,
    camel: pascal[0]!.toLowerCase() + pascal.slice(1),
    pluginId: id,
    packageName: `ctxkit-strategy-${kebab}`,
  };
}
