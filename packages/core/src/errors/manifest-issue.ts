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

/** The issues as one line: `file#pointer: message (expected ...)`, separated by semicolons. */
export function formatIssues(issues: readonly ManifestIssue[]): string {
  return issues
    .map((issue) => `${issue.file}#${issue.pointer || '/'}: ${issue.message} (expected ${issue.expected})`)
    .join('; ');
}
