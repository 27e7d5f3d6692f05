import { CtxkitError } from './ctxkit-error';
import { ErrorCodes } from './error-codes';

/** A plugin's entry module could not be loaded or exports no strategy factory. */
export class PluginLoadError extends CtxkitError {
  constructor(pluginId: string, entry: string, problem: string, cause?: unknown) {
    super({
      code: ErrorCodes.PLUGIN_LOAD_FAILED,
      category: 'plugin',
      message: `${pluginId}: cannot load entry ${entry}: ${problem}.`,
      fix:
        'Build the plugin (npm run build) and export `createStrategy(config, context)` from its entry (see ' +
        'docs/06-writing-a-strategy.md).',
      details: { pluginId, entry, problem },
      cause,
    });
  }
}
