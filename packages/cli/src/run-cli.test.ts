import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import type { CliOutput } from './cli-output';
import { runCli } from './run-cli';

async function ctxkit(...args: string[]): Promise<{ code: number; stderr: string }> {
  let stderr = '';
  const output: CliOutput = {
    out: () => undefined,
    err: (text) => void (stderr += text),
    color: false,
    interactive: false,
  };
  const code = await runCli(['node', 'ctxkit', ...args], output);
  return { code, stderr };
}

describe('runCli', () => {
  let tmp: string;
  let file: string;
  beforeAll(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ctxkit-cli-options-'));
    file = path.join(tmp, 'a-file');
    fs.writeFileSync(file, '');
    fs.mkdirSync(path.join(tmp, 'full'));
    fs.writeFileSync(path.join(tmp, 'full', 'keep.txt'), '');
  });
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

  // Every case: the option, the value, what is wrong and what to pass instead, exit 2, before any work.
  it.each([
    [
      ['compare', '--transcript', 'missing.jsonl'],
      "'--transcript <file>' argument 'missing.jsonl' is invalid",
      'pass the path of an existing file',
    ],
    [
      ['compare', '--plugin-dir', 'missing-dir'],
      "'--plugin-dir <dir>' argument 'missing-dir' is invalid",
      'pass the path of an existing directory',
    ],
    [
      ['compare', '--report', '<tmp>/a-file/report.html'],
      'a-file is a file, not a directory',
      'pass a path in a directory',
    ],
    [['compare', '--json', '<tmp>'], 'is a directory', 'pass the path of a file to write'],
    [
      ['compare', '--llm', 'bogus'],
      "'--llm <mode>' argument 'bogus' is invalid",
      'Allowed choices are auto, offline, env',
    ],
    [['quality', '--json', '<tmp>/a-file/q.json'], "'--json <out.json>'", 'pass a path in a directory'],
    [
      ['quality', '--dataset', 'mmlu'],
      "'--dataset <name>' argument 'mmlu' is invalid",
      'expected one of tau-bench, locomo, openhands',
    ],
    [
      ['simulate', '--agent', 'missing.json', '--transcript', 'missing.jsonl'],
      "'--agent <plugin.json>' argument 'missing.json' is invalid",
      'pass the path of an existing file',
    ],
    [
      ['validate', '--plugin-dir', '<tmp>/a-file', 'x.json'],
      'is not a directory',
      'pass the path of an existing directory',
    ],
    [
      ['new-strategy', 'x', '--id', 'Bad_Id'],
      "'--id <pluginId>' argument 'Bad_Id' is invalid",
      'Plugin ids use lowercase letters, digits and single hyphens',
    ],
    [
      ['new-strategy', 'x', '--dir', '<tmp>/full'],
      'exists and is not an empty directory',
      'Choose another --dir, or remove it first',
    ],
    [
      ['new-strategy', 'x', '--from-tarballs', '<tmp>'],
      'holds no ctxkit-core-<version>.tgz',
      'npm pack -w @ctxkit/core --pack-destination <dir>',
    ],
    [
      ['recommend-window', '--model-size', '8', '--quantization', 'q3'],
      "'--quantization <q>' argument 'q3' is invalid",
      'Allowed choices are q4, q8, f16',
    ],
    [['compare', '--no-such-option'], "unknown option '--no-such-option'", 'add --help for the options'],
    [
      ['compare', '--strategy', 'std-sliding-windw-strategy'],
      'No context strategy plugin with id "std-sliding-windw-strategy"',
      'Did you mean "std-sliding-window-strategy"?',
    ],
    [
      ['compare', '--config', 'std-sliding-window-strategy={cutBackRatio:0.6}'],
      "'--config <id=json>' argument",
      'expected <plugin id>=<JSON object>',
    ],
    [
      ['compare', '--config', 'std-sliding-windw-strategy={"cutBackRatio":0.6}'],
      'No context strategy plugin with id "std-sliding-windw-strategy"',
      'Did you mean "std-sliding-window-strategy"?',
    ],
    [
      ['quality', '--strategy', 'std-sliding-windw-strategy', '--dataset', 'tau-bench', '--json', '<tmp>/q.json'],
      'No context strategy plugin with id "std-sliding-windw-strategy"',
      'Did you mean "std-sliding-window-strategy"?',
    ],
  ])('%j: says what is wrong and the fix, exit 2', async (args, what, fix) => {
    const run = await ctxkit(...args.map((arg) => arg.replace('<tmp>', tmp)));
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(what);
    expect(run.stderr).toContain(fix);
  });
});
