/**
 * The kernel's own cost per turn, beyond its strategy and its model: an agent from
 * `runtime.loadAgent` (the sliding window) and `createAgent`, an instant model client, and a history
 * of 100 or 10,000 messages to which each turn adds one user message. The time spent inside the
 * strategy (`composePayload`, `onTurnComplete`, the capability calls) and inside the client is
 * measured and subtracted from the run's; what is left is the loop's work: wiring the steps, the
 * provider check, the pre-send count, the events and keeping the history.
 *
 * `node bench/dist/kernel-overhead-bench.js` prints the measurements as JSON; `npm run bench` adds
 * them to its table.
 */
import 'reflect-metadata';

import {
  type ChatMessage,
  type ContextSession,
  createContextRuntime,
  createTokenUsage,
  IContextManager,
  type ILLMClient,
  type LLMCompletion,
  type LLMPayload,
} from '@ctxkit/core';
import { type AgentHandleLike, createAgent } from '@ctxkit/kernel';

import { generateHistory } from './generate-history';

/**
 * Milliseconds of CPU this process has used: the measure of work done, which other processes on a
 * busy machine do not inflate as they inflate wall time.
 */
function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/** One measured configuration. */
export interface KernelOverheadEntry {
  messages: number;
  maxContextTokens: number;
  /** Median of the run's time less the strategy's and the client's, per turn. */
  overheadMs: number;
  /** Median time inside the strategy per turn. */
  strategyMs: number;
  /** Median of the whole `agent.run`, per turn. */
  runMs: number;
  turns: number;
}

/** A model that answers at once, without copying what it is sent. */
class InstantClient implements ILLMClient {
  readonly name = 'instant';
  readonly defaultModel = 'gpt-4o';
  readonly offline = true;
  spentMs = 0;

  async complete(): Promise<LLMCompletion> {
    const start = cpuMs();
    const completion: LLMCompletion = {
      message: { role: 'assistant', content: 'Done: the build passes.' },
      text: 'Done: the build passes.',
      usage: createTokenUsage({ input_tokens: 1000, output_tokens: 8 }),
      model: this.defaultModel,
      finishReason: 'stop',
    };
    this.spentMs += cpuMs() - start;
    return completion;
  }
}

/** The strategy behind a stopwatch: every call into it is timed, its capabilities stay visible. */
function timed(manager: ContextSession, clock: { spentMs: number }): ContextSession {
  const time = async <T>(work: () => T | Promise<T>): Promise<T> => {
    const start = cpuMs();
    try {
      return await work();
    } finally {
      clock.spentMs += cpuMs() - start;
    }
  };
  const wrapper: ContextSession = {
    sessionId: manager.sessionId,
    truncatesToolOutputs: manager.truncatesToolOutputs === true,
    epochs: () => manager.epochs(),
    preview: (...args) => manager.preview(...args),
    undo: (epochId) => manager.undo(epochId),
    pin: (target, options) => manager.pin(target, options),
    unpin: (pinId) => manager.unpin(pinId),
    pins: () => manager.pins(),
    composePayload: (systemPrompt, history, tools, ragContext, options): Promise<LLMPayload> =>
      time(() =>
        options !== undefined
          ? manager.composePayload(systemPrompt, history, tools, ragContext, options)
          : manager.composePayload(systemPrompt, history, tools, ragContext),
      ),
    onTurnComplete: (history: ChatMessage[]) => time(() => manager.onTurnComplete(history)),
  };
  if (manager.contributedTools) {
    wrapper.contributedTools = () => {
      const start = cpuMs();
      const tools = manager.contributedTools!();
      clock.spentMs += cpuMs() - start;
      return tools;
    };
  }
  if (manager.checkCompaction)
    wrapper.checkCompaction = (checkpoint, history, usage) =>
      time(() => manager.checkCompaction!(checkpoint, history, usage));
  if (manager.whenIdle) wrapper.whenIdle = () => time(() => manager.whenIdle!());
  return wrapper;
}

function median(values: readonly number[]): number {
  const sorted = values.slice().sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

async function measure(messages: number, maxContextTokens: number, turns: number): Promise<KernelOverheadEntry> {
  const runtime = await createContextRuntime();
  try {
    const handle = await runtime.loadAgent({
      id: 'kernel-bench',
      model: 'gpt-4o',
      contextStrategy: { type: 'plugin', pluginId: 'std-sliding-window-strategy', config: { maxContextTokens } },
    });
    const clock = { spentMs: 0 };
    const manager = timed(handle.contextManager, clock);
    const container = handle.container.createChild().registerValue(IContextManager, manager);
    const stopwatched: AgentHandleLike = {
      ...handle,
      id: handle.id,
      strategyId: handle.strategyId,
      container,
      forSession: () => manager,
    };
    const llm = new InstantClient();
    const agent = createAgent(stopwatched, { llm, systemPrompt: 'You are a careful coding agent.' });
    const history = generateHistory(messages, 42 + messages);
    // The first run reads the whole history (the strategy's first call); the turns after it are timed.
    await agent.run(history);
    for (let warm = 0; warm < 5; warm++) await agent.run(`Warm-up turn ${warm}: run the tests.`);
    const overhead: number[] = [];
    const strategy: number[] = [];
    const whole: number[] = [];
    for (let turn = 0; turn < turns; turn++) {
      clock.spentMs = 0;
      llm.spentMs = 0;
      const start = cpuMs();
      await agent.run(`Turn ${turn}: what changed since the last build?`);
      const elapsed = cpuMs() - start;
      whole.push(elapsed);
      strategy.push(clock.spentMs);
      overhead.push(elapsed - clock.spentMs - llm.spentMs);
    }
    await handle.dispose();
    return {
      messages,
      maxContextTokens,
      overheadMs: median(overhead),
      strategyMs: median(strategy),
      runMs: median(whole),
      turns,
    };
  } finally {
    await runtime.dispose();
  }
}

function fmt(value: number): string {
  return value < 0.01 ? `${(value * 1000).toFixed(1)} µs` : `${value.toFixed(3)} ms`;
}

/** Where {@link benchKernelOverhead} reports: the bench's table rows and its results file. */
export interface KernelOverheadReport {
  quick: boolean;
  rows: Array<[string, string, string, string]>;
  results: Record<string, unknown>;
}

/**
 * Measures the kernel's overhead per turn at 100 and 10,000 messages (8K and 128K windows), adds one
 * table row per configuration and the entries as `results.kernelOverhead`.
 */
export async function benchKernelOverhead(report: KernelOverheadReport): Promise<KernelOverheadEntry[]> {
  const entries: KernelOverheadEntry[] = [];
  for (const messages of [100, 10_000]) {
    for (const maxContextTokens of [8192, 131072]) {
      const entry = await measure(messages, maxContextTokens, report.quick ? 15 : 50);
      entries.push(entry);
      report.rows.push([
        `${messages.toLocaleString('en-US')} msgs, ${Math.round(maxContextTokens / 1024)}K`,
        'kernel overhead per turn (beyond the strategy, CPU)',
        fmt(entry.overheadMs),
        `whole run ${fmt(entry.runMs)}, strategy ${fmt(entry.strategyMs)}`,
      ]);
      process.stdout.write(
        `  kernel ${messages} msgs at ${maxContextTokens}: overhead ${fmt(entry.overheadMs)} per turn ` +
          `(run ${fmt(entry.runMs)}, strategy ${fmt(entry.strategyMs)})\n`,
      );
    }
  }
  report.results.kernelOverhead = entries;
  return entries;
}

if (require.main === module) {
  benchKernelOverhead({ quick: process.argv.includes('--quick'), rows: [], results: {} }).then(
    (entries) => process.stdout.write(`${JSON.stringify(entries, null, 2)}\n`),
    (error: unknown) => {
      process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
