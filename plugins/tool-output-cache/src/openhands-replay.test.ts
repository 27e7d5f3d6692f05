import {
  type ChatMessage,
  createTokenUsage,
  type ITokenCounter,
  type ToolDefinition,
  type ToolMessage,
} from '@ctxkit/core';
import { contentText, findPayloadProblems, groupEndingAt } from '@ctxkit/core/strategy-kit';
import { createConformanceContext, loadConversations, ScriptedLLMClient } from '@ctxkit/core/testing';

import { createStrategy } from './tool-output-cache-strategy';

/**
 * Replays the three OpenHands trajectories (MIT, bundled in core's fixtures) at a 16K window: the
 * strategy composes the payload before every recorded model call, as the agent loop would.
 */

const WINDOW_MODEL = 'local-16k';

/** The baseline: send everything that fits, newest first, by whole tool-call units. */
function everythingThatFits(history: ReadonlyArray<ChatMessage>, available: number, counter: ITokenCounter): number {
  let used = 0;
  let end = history.length;
  while (end > 0) {
    const group = groupEndingAt(history, end);
    let tokens = 0;
    for (let index = group.start; index < group.end; index++) tokens += counter.countMessage(history[index]!);
    if (used + tokens > available) break;
    used += tokens;
    end = group.start;
  }
  return used;
}

/** A summarizer that names the refs it was shown, so retained refs survive GC. */
function summarizer(): ScriptedLLMClient {
  return new ScriptedLLMClient(
    [
      (request) => {
        const refs = [...new Set(JSON.stringify(request.messages).match(/to_[0-9a-f]{32}/g) ?? [])].slice(-3);
        return (
          `<retain>Repository ponyc; refs ${refs.join(', ')}</retain>\n<summary>The agent explored the ponyc ` +
          `sources, ran the build and edited files to fix the issue; continue from the latest turn.</summary>`
        );
      },
    ],
    { repeatLast: true },
  );
}

describe('ToolOutputCacheStrategy on OpenHands trajectories at a 16K window', () => {
  const records = loadConversations('openhands-multi-swe-bench');

  const configs = [
    ['default config', { model: WINDOW_MODEL }],
    ['cutBackRatio 1', { model: WINDOW_MODEL, cutBackRatio: 1 }],
    ['compaction at 50%', { model: WINDOW_MODEL, compaction: { thresholdRatio: 0.5 } }],
    [
      'cutBackRatio 0.8, keepFirstShare 0.35, no compaction',
      { model: WINDOW_MODEL, cutBackRatio: 0.8, keepFirstShare: 0.35, compaction: { enabled: false } },
    ],
    ['no compaction', { model: WINDOW_MODEL, compaction: { enabled: false } }],
  ] as const;
  const cases = configs.flatMap(([label, config]) =>
    records.map((record) => [`${record.id} (${label})`, record, config] as const),
  );

  it.each(cases)(
    '%s: stays within budget, keeps pairs, and recovers every trimmed output byte for byte',
    async (_id, record, config) => {
      const { context, events } = createConformanceContext(
        `replay-${records.indexOf(record)}`,
        { agentId: 'coder', strategyId: 'std-tool-output-cache-strategy', model: WINDOW_MODEL },
        summarizer(),
      );
      const strategy = createStrategy(config, context);
      const expandTool = strategy
        .contributedTools()
        .find((tool) => tool.definition.function.name === 'tool_output_cache')!;
      const tools: ToolDefinition[] = record.tools ?? [];
      let strategyTokens = 0;
      let baselineTokens = 0;
      let calls = 0;
      let recovered = 0;
      // Over the calls where the history no longer fits whole: payload tokens, and those repeating the previous
      // payload's start.
      let reducedTokens = 0;
      let repeatedTokens = 0;
      for (let at = 1; at < record.history.length; at++) {
        if (record.history[at]!.role !== 'assistant') continue;
        const history = record.history.slice(0, at);
        const payload = await strategy.composePayload(record.systemPrompt, history, tools);
        calls++;
        const used = context.counter.countMessages(payload.messages) + context.counter.countTools(payload.tools);
        expect(used).toBe(payload.stats.budget.used);
        expect(used).toBeLessThanOrEqual(payload.stats.budget.available);
        expect(findPayloadProblems(payload.messages)).toEqual([]);
        // Outputs become placeholders only when the payload would not fit otherwise.
        const cacheStats = payload.stats.extra!.toolOutputCache as { underPressure: boolean };
        if (
          payload.stats.reductions.some((record) => record.action === 'trimmed' || record.action === 'micro-compacted')
        )
          expect(cacheStats.underPressure).toBe(true);
        strategyTokens += used;
        if (payload.stats.reductions.length > 0) {
          reducedTokens += used;
          repeatedTokens += payload.stats.repeatedPrefixTokens ?? 0;
        }
        const fixed =
          context.counter.countMessage({ role: 'system', content: record.systemPrompt }) +
          context.counter.countTools(tools);
        baselineTokens += fixed + everythingThatFits(history, payload.stats.budget.available - fixed, context.counter);
        // Every output shown shortened is recoverable through tool_output_cache, byte for byte.
        for (const message of payload.messages) {
          if (message.role !== 'tool' || !message.output_ref) continue;
          const original = history.find(
            (candidate): candidate is ToolMessage =>
              candidate.role === 'tool' &&
              candidate.tool_call_id === message.tool_call_id &&
              contentText(candidate.content) !== '' &&
              digestMatches(candidate, message),
          );
          if (!original || contentText(original.content) === contentText(message.content)) continue;
          const text = await expandAll(expandTool, message.output_ref.id, message.output_ref.byte_size!);
          expect(text).toBe(contentText(original.content));
          recovered++;
        }
        await strategy.onTurnComplete(record.history.slice(0, at + 1));
        const usage = createTokenUsage({
          input_tokens: used,
          output_tokens: context.counter.countMessage(record.history[at]!),
        });
        const after = await strategy.checkCompaction('after-llm-call', record.history.slice(0, at + 1), usage);
        expect(after.compacted === false || after.messages!.length > 0).toBe(true);
      }
      const names = new Set(events.map((event) => event.name));
      const compactsAtHalf =
        (config as { compaction?: { thresholdRatio?: number } }).compaction?.thresholdRatio === 0.5;
      expect(names.has('tool-output-cached')).toBe(true);
      // Compaction at half the window keeps the payload under the budget: nothing needs trimming there.
      // The defaults keep the conversation's first messages in front of a cut window (keepFirstShare), their
      // outputs never replaced to make room: the window gives way, and outputs may never need trimming.
      const defaults = !('cutBackRatio' in config);
      if (defaults && !compactsAtHalf) expect(names.has('tool-output-trim') || names.has('history-trim')).toBe(true);
      else if (!compactsAtHalf) expect(names.has('tool-output-trim')).toBe(true);
      if (!compactsAtHalf && !defaults) expect(recovered).toBeGreaterThan(0);
      if (compactsAtHalf) {
        expect(names.has('compaction-end')).toBe(true);
        expect(names.has('compaction-error')).toBe(false);
      }
      // Cut back in one go, the payloads then only append: most of each repeats the previous one's start.
      if ('cutBackRatio' in config && config.cutBackRatio < 1)
        expect(repeatedTokens / reducedTokens).toBeGreaterThan(0.8);
      if (process.env.CTXKIT_REPLAY_REPORT) {
        process.stdout.write(
          `${_id}: ${calls} calls, strategy ${Math.round(strategyTokens / calls)} tokens/call, ` +
            `send-everything-that-fits ${Math.round(baselineTokens / calls)} tokens/call, ` +
            `compactions ${events.filter((event) => event.name === 'compaction-end').length}, recovered ` +
            `outputs checked ${recovered}, repeated prefix ${((100 * repeatedTokens) / reducedTokens).toFixed(1)}%\n`,
        );
      }
    },
  );
});

/** Same call id is reused only across different outputs; the ref's byte size tells them apart. */
function digestMatches(original: ToolMessage, shown: ToolMessage): boolean {
  return Buffer.byteLength(contentText(original.content)) === shown.output_ref!.byte_size;
}

/** Rebuilds an output from its numbered lines; the byte size in the header tells whether it ended with a newline. */
async function expandAll(
  tool: { execute: (args: unknown, context: never) => Promise<string> },
  refId: string,
  byteSize: number,
): Promise<string> {
  const lines: string[] = [];
  let offset = 1;
  for (;;) {
    const answer = await tool.execute({ ref_id: refId, offset }, {} as never);
    const rows = answer.split('\n').filter((row) => /^ *\d+\t/.test(row));
    lines.push(...rows.map((row) => row.replace(/^ *\d+\t/, '')));
    const more = /\[more: continue with offset=(\d+)\]$/.exec(answer);
    if (!more || rows.length === 0) break;
    offset = Number(more[1]);
  }
  const text = lines.join('\n');
  return Buffer.byteLength(text) + 1 === byteSize ? `${text}\n` : text;
}
