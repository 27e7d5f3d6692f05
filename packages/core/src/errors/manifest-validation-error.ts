import { CtxkitError } from './ctxkit-error';
import { ErrorCodes } from './error-codes';

/** One problem in a manifest or config: where it is, what was expected. */
export interface ManifestIssue {
  /** The manifest file, or `<inline>` for an object. */
  file: string;
  /** JSON pointer to the offending value (`/contextStrategy/pluginId`). */
  pointer: string;
  message: string;
  /** What was expected there, in words (`one of: "plugin"`). */
  expected: string;
}

export function formatIssues(issues: readonly ManifestIssue[]): string {
  return issues.map((issue) => `${issue.file}#${issue.pointer || '/'}: ${issue.message} (expected ${issue.expected})`).join('; ');
}

/** A manifest (agent or plugin `plugin.json`) does not match its schema. Lists every issue. */
export class ManifestValidationError extends CtxkitError {
  readonly issues: ManifestIssue[];
  constructor(file: string, issues: ManifestIssue[], cause?: unknown) {
    super({
      code: ErrorCodes.MANIFEST_INVALID,
      category: 'user',
      message: `Invalid manifest ${file}: ${formatIssues(issues)}.`,
      fix: 'Correct the values at the JSON pointers above; see docs/03-plugin-json.md.',
      details: { file, issues },
      cause,
    });
    this.issues = issues;
  }
}

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

/** A plugin ships a `configSchema` (or an agent a state schema) that is not valid JSON Schema. */
export class ConfigSchemaError extends CtxkitError {
  constructor(owner: string, file: string, problem: string) {
    super({
      code: ErrorCodes.CONFIG_SCHEMA_INVALID,
      category: 'plugin',
      message: `${owner}: the JSON Schema in ${file} is invalid: ${problem}.`,
      fix: 'Fix the schema so that it compiles as JSON Schema draft-07 or 2020-12.',
      details: { owner, file, problem },
    });
  }
}
