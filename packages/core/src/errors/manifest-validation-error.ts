import { CtxkitError } from './ctxkit-error';
import { ErrorCodes } from './error-codes';
import { formatIssues, type ManifestIssue } from './manifest-issue';

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
