import type { ChatMessage, ContributedTool } from '@ctxkit/core';
import { contentText } from '@ctxkit/core/strategy-kit';
import { type ConversationRecord, createConformanceContext, loadConversations } from '@ctxkit/core/testing';

import { createStrategy } from './tool-output-cache-strategy';
import type { ToolOutputCacheStrategyConfig } from './tool-output-cache-strategy-config';

/**
 * Every cut is readable back: over the bundled tau-bench airline and OpenHands conversations, at a
 * few ceilings, every tool output a payload shows reduced (cut head + tail, an in-context view,
 * micro-compacted, a placeholder) names its ref in its text, and reading that ref through
 * `tool_output_cache` (paging by lines, reading on in cut lines by `char_offset`) gives the original
 * output byte for byte. A head + tail cut also says where its elided part lies: the text shown
 * before and after the marker is the original's up to and from there, and a read from there gives
 * the elided part. `npm test` runs a slice; `npm run test:conformance` (CTXKIT_CONFORMANCE_DEPTH=full)
 * every record at every ceiling.
 */

const FULL = process.env.CTXKIT_CONFORMANCE_DEPTH === 'full';
/** The default `toolOutputCache.maxMessageBytes` and `maxLineLength` the cases run with. */
const MAX_MESSAGE_BYTES = 51200;
const MAX_LINE_LENGTH = 2000;
const REF = /ref=(to_[0-9a-f]{32})/;
const CUT_MARKER = new RegExp(
  String.raw`\n?\[\.\.\. [\d,]+ lines \([\d,]+ bytes\) elided: ref=(to_[0-9a-f]{32})(?: from line (\d` +
    String.raw`+) char (\d+) to line (\d+) char (\d+))? \.\.\.\]\n?`,
);
const ROW = /^ *(\d+)\t(.*)$/s;
const LINE_CUT = /^(.*) \[… line cut at char (\d+) of (\d+): read on with offset=(\d+) char_offset=(\d+)\]$/s;

type Execute = ContributedTool['execute'];

/** The output's text from `line`, `char` on (to the end), through `tool_output_cache` alone. */
async function readOn(
  read: Execute,
  refId: string,
  line: number,
  char: number,
): Promise<{ text: string; byteSize: number }> {
  let text = '';
  let offset = line;
  let charOffset = char;
  let lastLine = line;
  let byteSize = -1;
  for (let calls = 0; calls < 100_000; calls++) {
    const answer = await read({ ref_id: refId, offset, char_offset: charOffset }, {} as never);
    const [header, ...rest] = answer.split('\n');
    const bytes = /, (\d+) bytes/.exec(header!);
    expect(bytes).not.toBeNull();
    byteSize = Number(bytes![1]);
    let next: { offset: number; charOffset: number } | undefined;
    for (const row of rest) {
      const more = /^\[more: continue with offset=(\d+)\]$/.exec(row);
      if (more) {
        next = { offset: Number(more[1]), charOffset: 0 };
        break;
      }
      const parsed = ROW.exec(row);
      expect(parsed).not.toBeNull();
      const number = Number(parsed![1]);
      if (number !== lastLine) text += '\n';
      lastLine = number;
      const cut = LINE_CUT.exec(parsed![2]!);
      if (cut) {
        text += cut[1];
        expect(Number(cut[4])).toBe(number);
        next = { offset: number, charOffset: Number(cut[5]) };
        break;
      }
      text += parsed![2];
    }
    if (!next) return { text, byteSize };
    ({ offset, charOffset } = next);
  }
  throw new Error(`reading ${refId} did not end`);
}

/** Index in `text` of a line (1-based) and a character within it. */
function indexOf(text: string, line: number, char: number): number {
  let start = 0;
  for (let at = 1; at < line; at++) start = text.indexOf('\n', start) + 1;
  return start + char;
}

interface Sweep {
  payloads: number;
  reduced: number;
  headTailCuts: number;
  /** Head + tail cuts whose marker says where the elided part lies. */
  locatedCuts: number;
  kinds: Set<string>;
}

async function sweep(
  records: ConversationRecord[],
  config: ToolOutputCacheStrategyConfig,
  maxMessageBytes: number,
): Promise<Sweep> {
  const totals: Sweep = { payloads: 0, reduced: 0, headTailCuts: 0, locatedCuts: 0, kinds: new Set() };
  for (const [index, record] of records.entries()) {
    const { context } = createConformanceContext(
      `cuts-${index}`,
      { agentId: 'agent', strategyId: 'std-tool-output-cache-strategy' },
      undefined,
    );
    const strategy = createStrategy(config, context);
    const read = strategy
      .contributedTools()
      .find((tool) => tool.definition.function.name === 'tool_output_cache')!.execute;
    const whole = new Map<string, string>();
    for (let at = 1; at <= record.history.length; at++) {
      if (at < record.history.length && record.history[at]!.role !== 'assistant') continue;
      const history = record.history.slice(0, at);
      const payload = await strategy.composePayload(record.systemPrompt, history, record.tools ?? []);
      totals.payloads++;
      const originals = new Map<string, string[]>();
      for (const message of history)
        if (message.role === 'tool')
          originals.set(message.tool_call_id, [
            ...(originals.get(message.tool_call_id) ?? []),
            contentText(message.content),
          ]);
      const reportedRefs = new Set(payload.stats.reductions.flatMap((reduction) => reduction.refs ?? []));
      for (const message of payload.messages as ChatMessage[]) {
        if (message.role !== 'tool') continue;
        const shown = contentText(message.content);
        const candidates = originals.get(message.tool_call_id) ?? [];
        if (candidates.includes(shown)) continue;
        totals.reduced++;
        const named = REF.exec(shown);
        if (!named)
          throw new Error(
            `${record.id}, payload ${totals.payloads}: a reduced tool output names no ref: ${shown.slice(0, 200)}`,
          );
        const refId = named[1]!;
        expect(reportedRefs.has(refId)).toBe(true);
        let original = whole.get(refId);
        if (original === undefined) {
          const back = await readOn(read, refId, 1, 0);
          original = Buffer.byteLength(back.text) + 1 === back.byteSize ? `${back.text}\n` : back.text;
          expect(Buffer.byteLength(original)).toBe(back.byteSize);
          whole.set(refId, original);
        }
        // The whole original output comes back, byte for byte.
        expect(candidates).toContain(original);
        totals.kinds.add(
          shown.startsWith('[tool output trimmed;')
            ? 'trimmed'
            : shown.startsWith('[Previous: used')
              ? 'micro-compacted'
              : CUT_MARKER.test(shown)
                ? 'head + tail'
                : 'view',
        );
        const cut = CUT_MARKER.exec(shown);
        if (!cut) continue;
        totals.headTailCuts++;
        expect(cut[1]).toBe(refId);
        // An output shown whole until cut says where the elided part lies; the cut of an in-context
        // view (past maxMessageBytes, or with long lines cut under micro-compact "always") names the ref only.
        const shownWhole =
          Buffer.byteLength(original) <= maxMessageBytes &&
          (config.microCompact?.when !== 'always' ||
            !original.split('\n').some((line) => line.length > MAX_LINE_LENGTH));
        expect(cut[2] !== undefined).toBe(shownWhole);
        if (cut[2] === undefined) continue;
        totals.locatedCuts++;
        const from = indexOf(original, Number(cut[2]), Number(cut[3]));
        const to = indexOf(original, Number(cut[4]), Number(cut[5]));
        // What surrounds the marker is the original's up to and from there.
        expect(shown.slice(0, cut.index)).toBe(original.slice(0, from));
        expect(shown.slice(cut.index + cut[0].length)).toBe(original.slice(to));
        // A read from where the marker says gives the elided part.
        const rest = await readOn(read, refId, Number(cut[2]), Number(cut[3]));
        expect(rest.text.slice(0, to - from)).toBe(original.slice(from, to));
      }
      await strategy.onTurnComplete(record.history.slice(0, at + 1));
    }
    await strategy.dispose();
  }
  return totals;
}

describe('every reduced tool output names a ref that reads back the original bytes', () => {
  const tau = loadConversations('tau-bench-airline');
  const openhands = loadConversations('openhands-multi-swe-bench');
  // task-2/trial-1 is the conversation whose cut reservation data once named no ref.
  const tauSlice = FULL ? tau : tau.filter((record, index) => index < 3 || record.id.endsWith('/task-2/trial-1'));
  const openhandsSlice = FULL ? openhands : openhands.slice(0, 1);
  const always = { microCompact: { when: 'always' as const } };
  const cases: Array<[string, ConversationRecord[], ToolOutputCacheStrategyConfig]> = FULL
    ? [
        ...[2000, 4000, 8000].flatMap(
          (ceiling): Array<[string, ConversationRecord[], ToolOutputCacheStrategyConfig]> => [
            [`tau-bench airline at ${ceiling}`, tauSlice, { maxContextTokens: ceiling, reserveOutputTokens: 0 }],
            [
              `tau-bench airline at ${ceiling}, micro-compact always`,
              tauSlice,
              { maxContextTokens: ceiling, reserveOutputTokens: 0, ...always },
            ],
          ],
        ),
        ...[4000, 8000, 16000].flatMap(
          (ceiling): Array<[string, ConversationRecord[], ToolOutputCacheStrategyConfig]> => [
            [`OpenHands at ${ceiling}`, openhandsSlice, { maxContextTokens: ceiling, reserveOutputTokens: 0 }],
            [
              `OpenHands at ${ceiling}, micro-compact always`,
              openhandsSlice,
              { maxContextTokens: ceiling, reserveOutputTokens: 0, ...always },
            ],
          ],
        ),
      ]
    : [
        ['tau-bench airline at 2000', tauSlice, { maxContextTokens: 2000, reserveOutputTokens: 0 }],
        ['tau-bench airline at 4000', tauSlice, { maxContextTokens: 4000, reserveOutputTokens: 0 }],
        [
          'tau-bench airline at 8000, micro-compact always',
          tauSlice,
          { maxContextTokens: 8000, reserveOutputTokens: 0, ...always },
        ],
        ['OpenHands at 16000', openhandsSlice, { maxContextTokens: 16000, reserveOutputTokens: 0 }],
      ];

  it.each(cases)('%s', async (_label, records, config) => {
    const totals = await sweep(records, config, MAX_MESSAGE_BYTES);
    // The sweep looked at reduced outputs, head + tail cuts among them where the ceiling is tight.
    expect(totals.reduced).toBeGreaterThan(0);
    if (process.env.CTXKIT_REPLAY_REPORT)
      process.stdout.write(
        `${_label}: ${totals.payloads} payloads, ${totals.reduced} reduced outputs ` +
          `(${[...totals.kinds].join(', ')}), ${totals.headTailCuts} head + tail cuts (${totals.locatedCuts} ` +
          `located)\n`,
      );
  });

  it('the slice meets head + tail cuts (the case this guards)', async () => {
    const record = tau.find((candidate) => candidate.id.endsWith('/task-2/trial-1'))!;
    const totals = await sweep([record], { maxContextTokens: 4000, reserveOutputTokens: 0 }, MAX_MESSAGE_BYTES);
    expect(totals.locatedCuts).toBeGreaterThan(0);
  });
});
