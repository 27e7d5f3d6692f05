import { closest } from './closest-id';
import { CtxkitError } from './ctxkit-error';
import { ErrorCodes } from './error-codes';

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
