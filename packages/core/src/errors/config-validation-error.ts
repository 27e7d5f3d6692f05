import { CtxkitError } from './ctxkit-error';
import { ErrorCodes } from './error-codes';
import { formatIssues, type ManifestIssue } from './manifest-issue';

/** An agent's strategy `config` does not match the plugin's `configSchema`. */
export class ConfigValidationError extends CtxkitError {
  readonly issues: ManifestIssue[];
  constructor(pluginId: string, file: string, issues: ManifestIssue[]) {
    super({
      code: ErrorCodes.CONFIG_INVALID,
      category: 'user',
      message: `${pluginId}: invalid config in ${file}: ${formatIssues(issues)}.`,
      fix: `Correct the config to match the configSchema of ${pluginId}; see docs/strategies/.`,
      details: { pluginId, file, issues },
    });
    this.issues = issues;
  }
}
