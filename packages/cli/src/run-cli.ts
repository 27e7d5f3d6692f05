import { CtxkitError } from '@ctxkit/core';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';

import { type CliOutput, createOutput } from './cli-output';
import { compareCommand } from './commands/compare-command';
import { newStrategyCommand } from './commands/new-strategy-command';
import { qualityCommand } from './commands/quality-command';
import { recommendWindowCommand } from './commands/recommend-window-command';
import { simulateCommand } from './commands/simulate-command';
import { validateCommand } from './commands/validate-command';
import { explainCommand } from './explain/explain-command';
import { MESSAGE_SHAPE_NAMES } from './lab/message-shape';
import { existingDirectory, existingFile, writableFile } from './path-options';
import { findCoreTarball } from './scaffold/core-tarball';
import { installedCoreVersion } from './scaffold/installed-core-version';
import { checkScaffoldDirectory } from './scaffold/scaffold-directory';
import { checkPluginId } from './scaffold/strategy-names';

/** Parses a positive integer option; commander prints the option, the value and this reason. */
function positiveInteger(value: string): number {
  const parsed = Number(value);
  if (value.trim() === '' || !Number.isInteger(parsed) || parsed <= 0)
    throw new InvalidArgumentError(`expected a positive whole number such as 4000, got "${value}".`);
  return parsed;
}

/** Parses a positive number option (sizes in billions or GiB may have decimals). */
function positiveNumber(value: string): number {
  const parsed = Number(value);
  if (value.trim() === '' || !Number.isFinite(parsed) || parsed <= 0)
    throw new InvalidArgumentError(`expected a positive number such as 8 or 0.5, got "${value}".`);
  return parsed;
}

/** Collects a repeatable option's values (not variadic, so that it never swallows the arguments after it). */
function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** Collects a repeatable directory option (`--plugin-dir`), each an existing directory. */
function collectDirectory(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), existingDirectory(value)];
}

/** `--format`: the message shape of the transcripts, instead of detecting it per conversation. */
function formatOption(): Option {
  return new Option(
    '--format <shape>',
    'the message shape of the transcript (default: detected per conversation)',
  ).choices(MESSAGE_SHAPE_NAMES);
}

/** Collects a repeatable file option (`--transcript`), each an existing file. */
function collectFile(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), existingFile(value)];
}

/** An option parser from a check that throws a typed ctxkit error: commander prints its message and fix, exit 2. */
function checkedBy(check: (value: string) => unknown): (value: string) => string {
  return (value) => {
    try {
      check(value);
      return value;
    } catch (error) {
      if (CtxkitError.isInstance(error)) throw new InvalidArgumentError(error.message);
      throw error;
    }
  };
}

/** Collects a repeatable positive integer option. */
function collectPositiveInteger(value: string, previous: number[] | undefined): number[] {
  return [...(previous ?? []), positiveInteger(value)];
}

/** Collects a repeatable `--config <plugin id>=<JSON object>` into config keys per plugin id. */
function collectConfig(
  value: string,
  previous: Record<string, Record<string, unknown>> | undefined,
): Record<string, Record<string, unknown>> {
  const at = value.indexOf('=');
  const id = value.slice(0, at).trim();
  let config: unknown;
  try {
    config = at > 0 ? JSON.parse(value.slice(at + 1)) : undefined;
  } catch {
    config = undefined;
  }
  if (id === '' || typeof config !== 'object' || config === null || Array.isArray(config)) {
    throw new InvalidArgumentError(
      `expected <plugin id>=<JSON object>, such as std-sliding-window-strategy='{"cutBackRatio":0.6}', got "${value}"`,
    );
  }
  return { ...previous, [id]: { ...previous?.[id], ...(config as Record<string, unknown>) } };
}

/** The data sets `ctxkit quality` knows (facts, recall). */
const QUALITY_DATASETS = ['tau-bench', 'locomo', 'openhands', 'longmemeval'];

/** The sections of `ctxkit quality`. */
const QUALITY_SECTIONS = ['facts', 'recall'];

/** Collects a repeatable `--section`. */
function collectSection(value: string, previous: string[] | undefined): string[] {
  if (!QUALITY_SECTIONS.includes(value))
    throw new InvalidArgumentError(`expected one of ${QUALITY_SECTIONS.join(', ')}, got "${value}"`);
  return [...(previous ?? []), value];
}

/** Collects a repeatable `--dataset`, checked against the known data sets. */
function collectDataset(value: string, previous: string[] | undefined): string[] {
  if (!QUALITY_DATASETS.includes(value))
    throw new InvalidArgumentError(`expected one of ${QUALITY_DATASETS.join(', ')}, got "${value}"`);
  return [...(previous ?? []), value];
}

/** Builds the `ctxkit` program. `output` receives everything printed (tests capture it). */
export function buildProgram(output: CliOutput, setExitCode: (code: number) => void): Command {
  const program = new Command('ctxkit')
    .description('ctxkit: pluggable context strategies for LLM agents')
    .version('0.1.0')
    .configureOutput({ writeOut: (text) => output.out(text), writeErr: (text) => output.err(text) })
    .showHelpAfterError('(add --help for the options)')
    .exitOverride();

  program
    .command('validate')
    .description('validate agent and strategy plugin.json manifests and their configs')
    .argument('<files...>', 'plugin.json files')
    .option('--plugin-dir <dir>', 'a directory to discover strategy plugins in (repeatable)', collectDirectory)
    .option('--json', 'print the problems as JSON')
    .action(async (files: string[], options: { pluginDir?: string[]; json?: boolean }) => {
      setExitCode(await validateCommand(files, options, output));
    });

  program
    .command('simulate')
    .description("replay a conversation turn by turn through an agent's strategy and show the context panel")
    .requiredOption('--agent <plugin.json>', "the agent's manifest", existingFile)
    .requiredOption(
      '--transcript <file>',
      'a transcript: JSONL, one conversation per line, or one JSON document (OpenAI chat, AI SDK, LangChain, ' +
        'Anthropic, OpenAI Responses or Agents SDK messages; see docs/11-cli.md)',
      existingFile,
    )
    .addOption(formatOption())
    .option('--conversation <id>', 'the conversation to replay (default: the first)')
    .option('--window <tokens>', 'context window (overrides the strategy config)', positiveInteger)
    .option('--debug', 'per-section breakdown in the panel')
    .option('--preview', 'before each call, print what the compose would leave out, fold, compact or trim')
    .option('--plugin-dir <dir>', 'a directory to discover strategy plugins in (repeatable)', collectDirectory)
    .action(async (options) => {
      setExitCode(await simulateCommand(options, output));
    });

  program
    .command('compare')
    .description('the installed strategies side by side on the same conversations (examples only when named)')
    .option(
      '--transcript <file>',
      'a transcript (JSONL or JSON, any message shape of docs/11-cli.md), repeatable (default: the bundled ' +
        'tau-bench and OpenHands conversations)',
      collectFile,
    )
    .addOption(formatOption())
    .option('--window <tokens>', 'context window for every transcript (default: sized per transcript)', positiveInteger)
    .option('--report <out.html>', 'write a self-contained HTML report there', writableFile)
    .option('--json <out.json>', 'write the results as JSON there', writableFile)
    .option(
      '--strategy <id>',
      'only this strategy plugin id (repeatable; example plugins are compared only when named)',
      collect,
    )
    .option('--limit <n>', 'at most n conversations per transcript', positiveInteger)
    .option('--plugin-dir <dir>', 'a directory to discover strategy plugins in (repeatable)', collectDirectory)
    .addOption(
      new Option('--llm <mode>', 'model for summaries and extraction')
        .choices(['auto', 'offline', 'env'])
        .default('auto'),
    )
    .option('--allow-rejections', 'exit 0 even when a strategy rejected calls (they are still reported)')
    .option(
      '--prices <file.json>',
      'input prices per provider model for the cost estimate (default: the bundled table)',
      existingFile,
    )
    .option(
      '--price <provider:model>',
      "the price table entry to estimate input cost with (default: the table's default, openai:gpt-4o)",
    )
    .addOption(
      new Option(
        '--cache-ttl <ttl>',
        'the time to live of the cache writes priced: Anthropic writes 5-minute entries at 1.25x input, 1-hour ones ' +
          'at 2x',
      )
        .choices(['5m', '1h'])
        .default('5m'),
    )
    .option('--pin-first-user', "pin each conversation's first user message and report the calls whose payload kept it")
    .option(
      '--config <id=json>',
      "config keys for one strategy over the lab's, as <plugin id>=<JSON object> (repeatable)",
      collectConfig,
    )
    .option('--wide', 'every column in the terminal table (about 300 columns wide; by default it fits 100)')
    .option(
      '--sweep',
      'run each strategy in every configuration of the sweep grid (its cache settings: cutBackRatio, ' +
        "keepFirstShare, memory share, minimum gain), one row each, and draw each strategy's frontier of facts " +
        'kept against input cost in the report',
    )
    .option(
      '--grid <file.json>',
      'the sweep grid: { "<plugin id>": { "<config key>": [values] } } (implies --sweep; default: the bundled grid)',
      existingFile,
    )
    .option('--no-progress', 'no progress bar')
    .action(async (options) => {
      setExitCode(await compareCommand(options, output));
    });

  program
    .command('quality')
    .description(
      'share of checkable facts present in the payload when they are needed, and of earlier turns recalled for a ' +
        'question, per strategy, data set and ceiling',
    )
    .option(
      '--section <name>',
      `only this section: ${QUALITY_SECTIONS.join(', ')} (repeatable; both by default)`,
      collectSection,
    )
    .option('--dataset <name>', `only this data set: ${QUALITY_DATASETS.join(', ')} (repeatable)`, collectDataset)
    .option('--ceiling <tokens>', 'only this payload ceiling, maxContextTokens (repeatable)', collectPositiveInteger)
    .option('--strategy <name>', 'only this strategy: a row label or plugin id (repeatable)', collect)
    .option('--limit <n>', 'at most n conversations per data set', positiveInteger)
    .option('--json <out.json>', 'where to write the results as JSON (default: reports/quality.json)', writableFile)
    .option(
      '--config <id=json>',
      "config keys for one strategy over each of its variants', as <plugin id>=<JSON object> (repeatable)",
      collectConfig,
    )
    .option('--plugin-dir <dir>', 'a directory to discover strategy plugins in (repeatable)', collectDirectory)
    .option('--no-progress', 'no progress indicator')
    .action(async (options) => {
      setExitCode(await qualityCommand(options, output));
    });

  program
    .command('explain')
    .description(
      "where did this go? the life of every message holding a text, from a session's trace: sent verbatim, dropped, " +
        'in which summary, trimmed behind which ref, recalled',
    )
    .requiredOption('--store <dir|url>', 'the store the agent writes to: a file store directory or a redis:// URL')
    .requiredOption('--agent <id>', 'the agent id')
    .requiredOption('--session <id>', 'the session id')
    .requiredOption('--find <text>', 'the text to look for (an id such as a reservation number)')
    .requiredOption(
      '--transcript <file>',
      'the conversation the session was composed from (JSONL or JSON; ctxkit keeps no copy of it)',
      existingFile,
    )
    .option(
      '--conversation <id>',
      'which conversation of the transcript, when it holds several (default: the one whose id is the session id)',
    )
    .option('--html <file>', 'also write the timeline as an HTML page', writableFile)
    .option('--json', 'print the explanation as JSON')
    .action(async (options) => {
      setExitCode(await explainCommand(options, output));
    });

  program
    .command('new-strategy')
    .description('scaffold a custom context strategy plugin package')
    .argument('<name>', 'strategy name, e.g. "pinned-notes"')
    .option(
      '--dir <dir>',
      'where to create the package: a new or empty directory (default: ./<name>)',
      checkedBy(checkScaffoldDirectory),
    )
    .option('--id <pluginId>', 'plugin id (default: <name>-strategy)', checkedBy(checkPluginId))
    .option(
      '--from-tarballs <dir>',
      'depend on the @ctxkit/core tarball in <dir> (from npm pack) instead of the registry',
      checkedBy((dir) => findCoreTarball(dir, installedCoreVersion())),
    )
    .action(async (name: string, options: { dir?: string; id?: string; fromTarballs?: string }) => {
      setExitCode(await newStrategyCommand(name, options, output));
    });

  program
    .command('recommend-window')
    .description('recommend a context window from machine memory and model size (speed / balanced / quality presets)')
    .requiredOption('--model-size <billions>', 'model parameters in billions, e.g. 8', positiveNumber)
    .addOption(new Option('--quantization <q>', 'weights quantization').choices(['q4', 'q8', 'f16']).default('q4'))
    .addOption(
      new Option('--preset <preset>', 'speed (50%), balanced (100%) or quality (150%)')
        .choices(['speed', 'balanced', 'quality'])
        .default('balanced'),
    )
    .option('--memory <GiB>', 'memory to plan for (default: this machine)', positiveNumber)
    .option(
      '--context-window <tokens>',
      'a window you want; shrunk with a warning when memory is short',
      positiveInteger,
    )
    .option('--force', 'keep --context-window even when memory is short')
    .option('--json', 'print JSON')
    .action(async (options) => {
      setExitCode(await recommendWindowCommand(options, output));
    });

  return program;
}

/**
 * A typed error about an option's value, found only once the command looked (an unknown `--strategy` id): its
 * `details.file` is the option.
 */
function namesAnOption(error: CtxkitError): boolean {
  const file = error.details.file;
  return typeof file === 'string' && file.startsWith('--');
}

/**
 * Runs the CLI with `argv` (as `process.argv`). Returns the exit code: 0 success, 1 a problem was
 * found or a command failed, 2 bad usage (a bad option value included). Typed ctxkit errors are
 * printed with their fix.
 */
export async function runCli(argv: readonly string[], output: CliOutput = createOutput()): Promise<number> {
  let exitCode = 0;
  const program = buildProgram(output, (code) => {
    exitCode = code;
  });
  try {
    await program.parseAsync([...argv]);
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (
        error.code === 'commander.helpDisplayed' ||
        error.code === 'commander.version' ||
        error.code === 'commander.help'
      )
        return 0;
      return error.exitCode === 0 ? 0 : 2;
    }
    if (CtxkitError.isInstance(error)) {
      output.err(`error ${error.code}: ${error.message}\n`);
      return namesAnOption(error) ? 2 : 1;
    }
    throw error;
  }
}
