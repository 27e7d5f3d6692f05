import type { PluginSummary } from '@ctxkit/core';

/**
 * True for a plugin that is an example of how to write one, not a strategy to choose from: its id
 * starts with `example-`, or its package is in the `@ctxkit-examples` scope (the repository's
 * `examples/`). `ctxkit compare` leaves these out unless `--strategy` names them.
 */
export function isExamplePlugin(plugin: Pick<PluginSummary, 'id' | 'source'>): boolean {
  return plugin.id.startsWith('example-') || plugin.source.startsWith('package @ctxkit-examples/');
}
