import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

// These tests run the real `ctxkit` bin (the built dist/) as a subprocess, the way users run it.
const repo = path.resolve(__dirname, '../../..');
const bin = path.join(repo, 'packages/cli/dist/bin/ctxkit.js');
const fixtures = path.join(__dirname, '__fixtures__');
const manifest = (name: string) => path.join(fixtures, 'manifests', name);

function ctxkit(args: string[], options: { cwd?: string; timeout?: number } = {}) {
  const result = spawnSync(process.execPath, [bin, ...args], {
    cwd: options.cwd ?? repo,
    encoding: 'utf8',
    timeout: options.timeout ?? 120_000,
    env: { ...process.env, NO_COLOR: '1', OPENAI_API_KEY: '', OPENAI_BASE_URL: '', ANTHROPIC_API_KEY: '' },
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('ctxkit (bin)', () => {
  beforeAll(() => {
    if (!fs.existsSync(bin)) throw new Error(`${bin} is missing: run npm run build first (npm test does).`);
  });

  describe('validate', () => {
    it('accepts a good agent manifest and the README example manifest unchanged, exit 0', () => {
      const run = ctxkit(['validate', manifest('support-agent.plugin.json'), manifest('readme-example.plugin.json')]);
      expect(run.stdout).toContain('✓');
      expect(run.code).toBe(0);
    });

    it.each([
      ['config-violates-schema.plugin.json', '/contextStrategy/config/maxContextTokens', 'CTXKIT_CONFIG_INVALID'],
      ['unknown-plugin-id.plugin.json', '/contextStrategy/pluginId', 'CTXKIT_PLUGIN_NOT_FOUND'],
      ['id-with-slash.plugin.json', '/id', 'CTXKIT_MANIFEST_INVALID'],
      ['strategy-plugin-bad-schema.plugin.json', '/configSchema', 'CTXKIT_MANIFEST_INVALID'],
    ])('reports %s with its JSON pointer, expectation and code, exit 1', (file, pointer, code) => {
      const run = ctxkit(['validate', manifest(file)]);
      expect(run.code).toBe(1);
      expect(run.stdout).toContain('✗');
      expect(run.stdout).toContain(pointer);
      expect(run.stdout).toContain('expected:');
      expect(run.stdout).toContain(code);
    });

    it('names the closest existing plugin id', () => {
      expect(ctxkit(['validate', manifest('unknown-plugin-id.plugin.json')]).stdout).toContain(
        'std-summarization-strategy',
      );
    });

    it('prints JSON with --json', () => {
      const run = ctxkit(['validate', '--json', manifest('config-violates-schema.plugin.json')]);
      const verdicts = JSON.parse(run.stdout) as Array<{ valid: boolean; problems: Array<{ pointer: string }> }>;
      expect(verdicts[0]!.valid).toBe(false);
      expect(verdicts[0]!.problems[0]!.pointer).toBe('/contextStrategy/config/maxContextTokens');
    });
  });

  describe('simulate', () => {
    it('replays a conversation and prints the context panel at each model call', () => {
      const run = ctxkit([
        'simulate',
        '--agent',
        manifest('support-agent.plugin.json'),
        '--transcript',
        path.join(fixtures, 'short-conversation.jsonl'),
        '--window',
        '3000',
      ]);
      expect(run.code).toBe(0);
      expect(run.stdout).toContain('┌─ Context · call 1');
      expect(run.stdout).toMatch(/\d(\.\d)?K \/ 3K +\(\d+%\)/);
      expect(run.stdout).toMatch(/model calls replayed; 0 invalid or over-budget payloads/);
      expect(run.stdout).not.toMatch(/\u001b\[/);
    });

    it('shows the per-section breakdown with --debug', () => {
      const run = ctxkit([
        'simulate',
        '--agent',
        manifest('support-agent.plugin.json'),
        '--transcript',
        path.join(fixtures, 'short-conversation.jsonl'),
        '--debug',
      ]);
      expect(run.code).toBe(0);
      for (const label of [
        'system:',
        'tools def:',
        'memory:',
        'history:',
        'last out:',
        'remaining:',
        'msgs:',
        'truncated:',
      ])
        expect(run.stdout).toContain(label);
    });

    it(
      'prints before each call what the compose would leave out and trim with --preview, and the previewed payload ' +
        'is the one sent',
      () => {
        const run = ctxkit([
          'simulate',
          '--agent',
          manifest('support-agent.plugin.json'),
          '--transcript',
          path.join(fixtures, 'short-conversation.jsonl'),
          '--window',
          '2500',
          '--preview',
          '--debug',
        ]);
        expect(run.code).toBe(0);
        expect(run.stdout).toContain('preview of call 1: ');
        expect(run.stdout).toMatch(
          /preview of call \d+: [\d,]+ tokens\n {2}- leaves out #0–#\d+ \(\d+ messages, [\d,]+ tokens\)/,
        );
        // Each preview's token count is the panel's of the same call (the preview composed what was then sent).
        const previewed = [...run.stdout.matchAll(/preview of call \d+: ([\d,]+) tokens/g)].map((match) => match[1]);
        const sent = [...run.stdout.matchAll(/│ ([\d,]+) \/ 2,500 tokens/g)].map((match) => match[1]);
        expect(previewed.length).toBeGreaterThan(5);
        expect(previewed).toEqual(sent);
        expect(run.stdout).toMatch(/model calls replayed; 0 invalid or over-budget payloads/);
      },
    );

    it('names an unknown conversation id with a typed error, exit 1', () => {
      const run = ctxkit([
        'simulate',
        '--agent',
        manifest('support-agent.plugin.json'),
        '--transcript',
        path.join(fixtures, 'short-conversation.jsonl'),
        '--conversation',
        'nope',
      ]);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('CTXKIT_HISTORY_INVALID');
    });
  });

  describe('compare', () => {
    it('runs every standard strategy side by side and writes a self-contained report', () => {
      const out = fs.mkdtempSync(path.join(os.tmpdir(), 'ctxkit-compare-'));
      const report = path.join(out, 'report.html');
      const json = path.join(out, 'results.json');
      const run = ctxkit([
        'compare',
        '--transcript',
        path.join(fixtures, 'short-conversation.jsonl'),
        '--window',
        '4096',
        '--report',
        report,
        '--json',
        json,
        '--no-progress',
      ]);
      expect(run.code).toBe(0);
      expect(run.stdout).toContain('offline fallbacks, no LLM');
      const results = JSON.parse(fs.readFileSync(json, 'utf8')) as {
        summaries: Array<{ strategyId: string; invalidPayloads: number; overBudgetPayloads: number }>;
      };
      const ids = results.summaries.map((summary) => summary.strategyId);
      for (const id of [
        'std-sliding-window-strategy',
        'std-summarization-strategy',
        'std-entity-extraction-strategy',
        'std-tool-output-cache-strategy',
      ])
        expect(ids).toContain(id);
      for (const summary of results.summaries) {
        expect(summary.invalidPayloads).toBe(0);
        expect(summary.overBudgetPayloads).toBe(0);
      }
      const html = fs.readFileSync(report, 'utf8');
      expect(html).toContain('<canvas id="tokens-0-0"');
      expect(html).toContain('<canvas id="facts-cost-0"');
      expect(html).not.toMatch(/<script[^>]+src=/i);
    });
  });

  describe('compare (bad input)', () => {
    it('names an unknown strategy id with the installed ones, exit 2', () => {
      const run = ctxkit(['compare', '--strategy', 'std-sliding-windw-strategy', '--no-progress']);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain('CTXKIT_PLUGIN_NOT_FOUND');
      expect(run.stderr).toContain('Did you mean "std-sliding-window-strategy"?');
    });

    it('refuses --llm env without a configured endpoint, with the fix, exit 1', () => {
      const run = ctxkit(['compare', '--llm', 'env', '--no-progress']);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('CTXKIT_LLM_NOT_CONFIGURED');
    });
  });

  describe('new-strategy', () => {
    it('scaffolds a plugin package whose own tests (unit + conformance suite) pass as generated', () => {
      // Inside the repository so that the generated package resolves @ctxkit/core and jest from the root node_modules.
      const parent = path.join(repo, '.ctxkit');
      fs.mkdirSync(parent, { recursive: true });
      const dir = fs.mkdtempSync(path.join(parent, 'scaffold-'));
      fs.rmSync(dir, { recursive: true });
      try {
        const run = ctxkit(['new-strategy', 'pinned-note', '--dir', dir]);
        expect(run.code).toBe(0);
        for (const file of [
          'package.json',
          'plugin.json',
          'src/index.ts',
          'src/pinned-note-strategy.ts',
          'src/conformance.test.ts',
          'README.md',
        ]) {
          expect(fs.existsSync(path.join(dir, file))).toBe(true);
        }
        const tests = spawnSync(process.execPath, [require.resolve('jest/bin/jest'), '--ci'], {
          cwd: dir,
          encoding: 'utf8',
          timeout: 280_000,
        });
        expect(`${tests.stdout}${tests.stderr}`).toMatch(/Tests:\s+\d+ passed, \d+ total/);
        expect(tests.status).toBe(0);
        const typecheck = spawnSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.json'], {
          cwd: dir,
          encoding: 'utf8',
        });
        expect(typecheck.stdout).toBe('');
        expect(typecheck.status).toBe(0);
        // Its manifest validates, and, built, an agent naming it loads through the runtime from --plugin-dir.
        expect(ctxkit(['validate', path.join(dir, 'plugin.json')]).code).toBe(0);
        const agent = path.join(dir, 'agent.plugin.json');
        fs.writeFileSync(
          agent,
          JSON.stringify({
            id: 'note-agent',
            contextStrategy: { type: 'plugin', pluginId: 'pinned-note-strategy', config: { note: 'Be brief.' } },
          }),
        );
        const loaded = ctxkit(['validate', '--plugin-dir', dir, agent]);
        expect(loaded.stdout).toContain('✓');
        expect(loaded.code).toBe(0);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    }, 300_000);

    it('refuses a name that is not a safe id', () => {
      const run = ctxkit(['new-strategy', '../escape']);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('CTXKIT_PLUGIN_PATH_UNSAFE');
    });
  });

  describe('recommend-window', () => {
    it('recommends a window from memory and model size, with the presets', () => {
      const balanced = JSON.parse(
        ctxkit(['recommend-window', '--model-size', '8', '--memory', '16', '--json']).stdout,
      ) as { contextWindow: number };
      const speed = JSON.parse(
        ctxkit(['recommend-window', '--model-size', '8', '--memory', '16', '--preset', 'speed', '--json']).stdout,
      ) as { contextWindow: number };
      expect(balanced.contextWindow).toBeGreaterThan(speed.contextWindow);
      expect(speed.contextWindow).toBe(balanced.contextWindow / 2);
    });

    it('shrinks a window that does not fit with a plain warning instead of failing', () => {
      const run = ctxkit(['recommend-window', '--model-size', '30', '--memory', '16', '--context-window', '32768']);
      expect(run.code).toBe(0);
      expect(run.stdout).toContain('32768 →');
      expect(run.stdout).toContain('⚠');
    });
  });

  it('exits 2 on bad usage', () => {
    expect(ctxkit(['simulate']).code).toBe(2);
    expect(ctxkit(['nonsense']).code).toBe(2);
  });

  it.each([
    [
      [
        'simulate',
        '--agent',
        manifest('support-agent.plugin.json'),
        '--transcript',
        path.join(fixtures, 'short-conversation.jsonl'),
        '--window',
        'abc',
      ],
      "option '--window <tokens>' argument 'abc' is invalid",
      'positive whole number',
    ],
    [['compare', '--limit', '-5'], "option '--limit <n>' argument '-5' is invalid", 'positive whole number'],
    [
      ['recommend-window', '--model-size', '8', '--context-window', '0'],
      "'--context-window <tokens>' argument '0' is invalid",
      'positive whole number',
    ],
    [
      ['recommend-window', '--model-size', 'abc'],
      "'--model-size <billions>' argument 'abc' is invalid",
      'positive number',
    ],
  ])('says which option value is wrong and what it expects, exit 2: %j', (args, what, expected) => {
    const run = ctxkit(args);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(what);
    expect(run.stderr).toContain(expected);
  });
});
