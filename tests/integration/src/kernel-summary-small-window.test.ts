import 'reflect-metadata';

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import {
  type ChatMessage,
  type ContextRuntime,
  createContextRuntime,
  type LLMCompletionRequest,
  type PayloadStats,
} from '@ctxkit/core';
import { contentText, findPayloadProblems } from '@ctxkit/core/strategy-kit';
import { ScriptedLLMClient } from '@ctxkit/core/testing';
import { type AgentTool, createAgent } from '@ctxkit/kernel';

/**
 * The summarization strategy under the kernel's small-context modes: plugin.json → loader → DI →
 * kernel → scripted model → a tool that returns a large build log → next turn, at 4,000, 8,000 and
 * 16,000-token windows with the offline summarizer. Below 16,384 tokens the kernel asks the strategy to send
 * older tool results as one-line summaries; the strategy must still see the history it was given
 * in both calls, so that the summary it folds in the background matches the history of the next
 * turn: no re-sync, summary versions that only grow, and the summary in every payload whose window
 * does not already hold the whole history.
 */

const WINDOWS = [4000, 8000, 16000] as const;
const TURNS = 24;
const SYSTEM_PROMPT =
  'You are a build engineer. Read the build logs you are asked about and report what failed and why, briefly.';

/** A deterministic build log of `lines` lines (about 12K tokens for 400 lines), its failure on the last line. */
function buildLog(job: number, lines = 400): string {
  const modules = ['parser', 'lexer', 'codegen', 'runtime', 'linker', 'optimizer', 'scheduler', 'storage'];
  const out: string[] = [`build job ${job} started on runner-${(job % 4) + 1}`];
  for (let line = 1; line < lines; line++) {
    const module = modules[(line + job) % modules.length]!;
    const level = line % 97 === 0 ? 'WARN' : 'INFO';
    out.push(
      `2026-11-23T10:${String(line % 60).padStart(2, '0')}:${String((line * 7) % 60).padStart(2, '0')}Z [${level}] ` +
        `step ${line}: compiled ${module}-${job}-${line} in ${(line * 37 + job * 11) % 900} ms`,
    );
  }
  out.push(
    `[ERROR] job ${job}: test suite ${modules[job % modules.length]} failed: expected ${job * 3} passing, ` +
      `got ${job * 3 - 1}`,
  );
  return out.join('\n');
}

/** The model: calls the log tool on a user message, reports after the tool result. */
function scriptedModel(): ScriptedLLMClient {
  let call = 0;
  return new ScriptedLLMClient(
    [
      (request: LLMCompletionRequest) => {
        const last = request.messages[request.messages.length - 1]!;
        if (last.role === 'user') {
          const job = Number(/job (\d+)/.exec(contentText(last.content))?.[1] ?? '0');
          call++;
          return {
            content: null,
            tool_calls: [
              {
                id: `call_${call}`,
                type: 'function',
                function: { name: 'read_build_log', arguments: JSON.stringify({ job }) },
              },
            ],
          };
        }
        // A report of about 500 tokens: the failure, the warnings the model saw, and what to do next.
        const text = contentText(last.content ?? null);
        const job = /build job (\d+)/.exec(text)?.[1] ?? '?';
        const failure = /\[ERROR\] (job \d+: [^\n]*)/.exec(text)?.[1];
        const warnings = text.split('\n').filter((line) => line.includes('[WARN]')).length;
        return {
          content:
            `${
              failure
                ? `The build ` + `failed: ${failure}.`
                : `The part of the log of job ${job} I saw does not show the failure; it is near the end of the log.`
            } ` +
            `I saw ${warnings} warnings before it. ` +
            Array.from(
              { length: 12 },
              (_unused, step) =>
                `Step ${step + 1} for job ${job}: rerun the failing suite on ` +
                `runner-${((Number(job) + step) % 4) + 1} with verbose output, compare its timings with the ` +
                `previous green build, and check whether the flaky fixture of module ${step} was touched.`,
            ).join(' '),
        };
      },
    ],
    { repeatLast: true, name: 'scripted-build-engineer' },
  );
}

const readBuildLog: AgentTool = {
  definition: {
    type: 'function',
    function: {
      name: 'read_build_log',
      description: 'Returns the full log of a CI build job.',
      parameters: { type: 'object', properties: { job: { type: 'integer' } }, required: ['job'] },
    },
  },
  execute: (args: unknown) => buildLog(Number((args as { job?: number }).job ?? 0)),
};

/** Writes the agent's plugin.json for a window and returns its path. */
function writeManifest(dir: string, window: number): string {
  const manifest = {
    id: `build-engineer-${window}`,
    name: 'Build engineer with a running summary',
    model: 'gpt-4o',
    systemPrompt: SYSTEM_PROMPT,
    contextStrategy: {
      type: 'plugin',
      pluginId: 'std-summarization-strategy',
      config: { summarizer: 'offline', threshold: 6, maxContextTokens: window },
    },
  };
  const file = path.join(dir, `build-engineer-${window}.plugin.json`);
  fs.writeFileSync(file, JSON.stringify(manifest, null, 2));
  return file;
}

interface Observed {
  stats: PayloadStats[];
  sent: ChatMessage[][];
  resyncs: unknown[];
  versions: number[];
  /** Calls where older tool results went out as one-line summaries (small-context mode A). */
  collapsedCalls: number;
}

async function run(runtime: ContextRuntime, manifestPath: string): Promise<Observed> {
  const handle = await runtime.loadAgent(manifestPath);
  const observed: Observed = { stats: [], sent: [], resyncs: [], versions: [], collapsedCalls: 0 };
  // The agent's own bus: every event here is this agent's.
  handle.events.on('summary-resync', (event) => observed.resyncs.push(event));
  handle.events.on('summary-end', (event) => observed.versions.push(event.version));
  const llm = scriptedModel();
  const agent = createAgent(handle, { llm, tools: [readBuildLog] });
  try {
    for (let turn = 1; turn <= TURNS; turn++) {
      const result = await agent.run(`Why did build job ${turn} fail?`, { waitForIdle: true });
      observed.stats.push(...result.payloads);
      observed.collapsedCalls += result.budget.modesFired.A;
    }
    observed.sent = llm.requests.map((request) => request.messages as ChatMessage[]);
    return observed;
  } finally {
    await handle.dispose();
  }
}

/** True when the payload leaves part of the history out (the window does not hold all of it). */
const leavesHistoryOut = (stats: PayloadStats): boolean =>
  stats.reductions.some(
    (record) => (record.action === 'dropped' || record.action === 'summarized') && record.messages > 0,
  );

describe(
  'kernel + summarization at small windows (plugin.json → loader → DI → kernel → scripted model → large tool ' +
    'output)',
  () => {
    let runtime: ContextRuntime;
    let dir: string;

    beforeAll(async () => {
      runtime = await createContextRuntime();
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ctxkit-summary-small-window-'));
    });

    afterAll(async () => {
      await runtime.dispose();
      fs.rmSync(dir, { recursive: true, force: true });
    });

    for (const window of WINDOWS) {
      it(
        `sends the summary once it exists and never rebuilds it for an unchanged history at ${window} ` + `tokens`,
        async () => {
          const observed = await run(runtime, writeManifest(dir, window));
          const extras = observed.stats.map((stats) => stats.extra ?? {});
          if (process.env.CTXKIT_REPLAY_REPORT) {
            process.stdout.write(
              `${window}: resyncs ${observed.resyncs.length}, folds ${observed.versions.length}, calls with ` +
                `collapsed ` +
                `results ${observed.collapsedCalls}; per call v<summary version><+ sent | - not sent><* window ` +
                `holds the whole history>: ` +
                `${extras
                  .map(
                    (extra, index) =>
                      `v${String(extra.summaryVersion)}` +
                      `${extra.summaryIncluded === true ? '+' : '-'}` +
                      `${leavesHistoryOut(observed.stats[index]!) ? '' : '*'}`,
                  )
                  .join(' ')}\n`,
            );
          }

          // The history the strategy folds is the history it is given: nothing to re-sync.
          expect(observed.resyncs).toEqual([]);
          // Folds happened, and each one grew the version by one.
          expect(observed.versions.length).toBeGreaterThan(0);
          expect(observed.versions).toEqual(observed.versions.map((_version, index) => index + 1));
          const versions = extras.map((extra) => extra.summaryVersion as number);
          versions.forEach((version, index) =>
            expect(version).toBeGreaterThanOrEqual(index > 0 ? versions[index - 1]! : 0),
          );
          expect(Math.max(...versions)).toBeLessThanOrEqual(observed.versions[observed.versions.length - 1]!);

          // Below 16,384 tokens the kernel asks for older tool results as one-line summaries, and the strategy's
          // composer sends them so.
          expect(observed.collapsedCalls).toBeGreaterThan(0);

          // Once a summary exists, it reaches the model whenever the window does not hold the whole history.
          let withSummary = 0;
          observed.stats.forEach((stats, index) => {
            const extra = extras[index]!;
            const sent = observed.sent[index]!;
            expect(findPayloadProblems(sent)).toEqual([]);
            if ((extra.summaryVersion as number) === 0) return;
            if (leavesHistoryOut(stats))
              expect({ call: index, summaryIncluded: extra.summaryIncluded }).toEqual({
                call: index,
                summaryIncluded: true,
              });
            if (extra.summaryIncluded === true) {
              withSummary++;
              expect(sent[1]!.role).toBe('user');
              expect(contentText(sent[1]!.content ?? null)).toContain(
                `<conversation_summary covers_messages="0-${(extra.coveredMessages as number) - 1}"`,
              );
              expect(stats.reductions.some((record) => record.action === 'summarized' && record.from === 0)).toBe(true);
            }
          });
          expect(withSummary).toBeGreaterThan(0);
          // Every payload fits its budget.
          for (const stats of observed.stats) expect(stats.budget.used).toBeLessThanOrEqual(stats.budget.available);
        },
      );
    }
  },
);
