import { createContextRuntime, CtxkitError, ErrorCodes, type ManifestIssue, validateManifest } from '@ctxkit/core';
import { createColors } from 'picocolors';

import type { CliOutput } from '../cli-output';

/** The options of `ctxkit validate` (see docs/11-cli.md). */
export interface ValidateOptions {
  pluginDir?: string[];
  json?: boolean;
}

/** One file's verdict. */
export interface FileVerdict {
  file: string;
  kind: string;
  valid: boolean;
  problems: Array<ManifestIssue & { code: string; fix?: string }>;
}

/**
 * Validates agent and strategy manifests: the manifest against its schema, then, for an agent, that
 * its strategy plugin exists and its config matches the plugin's `configSchema` (by loading it the
 * way the runtime does). Every problem comes with file, JSON pointer, expected value and fix.
 */
export async function validateFiles(files: readonly string[], options: ValidateOptions = {}): Promise<FileVerdict[]> {
  const runtime = await createContextRuntime({ pluginDirs: options.pluginDir });
  const verdicts: FileVerdict[] = [];
  for (const file of files) {
    const result = validateManifest(file);
    const verdict: FileVerdict = {
      file,
      kind: result.kind,
      valid: result.valid,
      problems: result.errors.map((issue) => ({
        ...issue,
        code: ErrorCodes.MANIFEST_INVALID,
        fix: 'See docs/03-plugin-json.md.',
      })),
    };
    if (result.valid && result.kind === 'agent') {
      try {
        const agent = await runtime.loadAgent(file);
        await agent.dispose();
      } catch (error) {
        if (!CtxkitError.isInstance(error)) throw error;
        verdict.valid = false;
        const issues = (error.details.issues as ManifestIssue[] | undefined) ?? [
          {
            file,
            pointer: typeof error.details.pointer === 'string' ? error.details.pointer : '',
            message: error.message.replace(/ Fix: [\s\S]*$/, ''),
            expected: Array.isArray(error.details.available)
              ? `one of: ${(error.details.available as string[]).join(', ')}`
              : 'a loadable agent',
          },
        ];
        const fix = error.fix ?? /Fix: ([\s\S]*)$/.exec(error.message)?.[1];
        for (const issue of issues)
          verdict.problems.push({
            ...issue,
            message: issue.message.replace(/ Fix: [\s\S]*$/, ''),
            code: error.code,
            fix,
          });
      }
    }
    verdicts.push(verdict);
  }
  return verdicts;
}

/** `ctxkit validate <files...>`: exit 0 when every file is valid, 1 otherwise. */
export async function validateCommand(
  files: readonly string[],
  options: ValidateOptions,
  output: CliOutput,
): Promise<number> {
  const verdicts = await validateFiles(files, options);
  if (options.json) {
    output.out(`${JSON.stringify(verdicts, null, 2)}\n`);
  } else {
    const colors = createColors(output.color);
    for (const verdict of verdicts) {
      if (verdict.valid) {
        output.out(`${colors.green('✓')} ${verdict.file} (${verdict.kind} manifest)\n`);
        continue;
      }
      output.out(
        `${colors.red('✗')} ${verdict.file} (${verdict.kind} manifest): ${verdict.problems.length} problem(s)\n`,
      );
      for (const problem of verdict.problems) {
        output.out(`  ${colors.bold(problem.pointer || '/')}: ${problem.message}\n`);
        output.out(`    expected: ${problem.expected}\n`);
        output.out(`    code: ${problem.code}${problem.fix ? `\n    fix: ${problem.fix}` : ''}\n`);
      }
    }
  }
  return verdicts.every((verdict) => verdict.valid) ? 0 : 1;
}
