import type { AssistantMessage, ChatMessage, ToolMessage } from '../contracts/chat-message';
import type { ToolDefinition } from '../contracts/tool-definition';

/** Bound once: a global looked up in a hot loop is slow under jest's vm sandbox. */
const imul = Math.imul;

/** Options of {@link generateHistory}. */
export interface SyntheticHistoryOptions {
  /** Number of messages, at least. @default 1000 */
  messages?: number;
  /** PRNG seed: the same seed gives the same history. @default 42 */
  seed?: number;
  /** Size of the largest tool output in characters. @default 4000 */
  maxToolOutputChars?: number;
}

/** Tool definitions used by {@link generateHistory}. */
export const SYNTHETIC_TOOLS: ToolDefinition[] = [
  {
    type: 'function',
    function: {
      name: 'read_file',
      description: 'Read a file',
      parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    },
  },
  {
    type: 'function',
    function: {
      name: 'run',
      description: 'Run a shell command',
      parameters: { type: 'object', properties: { cmd: { type: 'string' } }, required: ['cmd'] },
    },
  },
];

const WORDS = [
  'flight',
  'booking',
  'reservation',
  'の予約を変更したい',
  '東京',
  '🚀',
  'error',
  'build',
  'test',
  'パッケージ',
  'refund',
  '✈️',
  'cabin',
  'mutable',
  'const',
];

/** A seeded PRNG (mulberry32): the same seed gives the same sequence in [0, 1). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = imul(t ^ (t >>> 15), t | 1);
    t ^= t + imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A seeded, valid coding/support-agent history: user turns, assistant answers, and tool-call groups
 * with 1-3 parallel calls (call ids reused across the conversation, as real data does), Japanese and
 * emoji text, tool outputs up to `maxToolOutputChars`. It ends on a user message. For long-history
 * tests and benchmarks; the property-based generators are in `arbitraries.ts`.
 */
export function generateHistory(options: SyntheticHistoryOptions = {}): ChatMessage[] {
  const target = options.messages ?? 1000;
  const random = seededRandom(options.seed ?? 42);
  const maxOutput = options.maxToolOutputChars ?? 4000;
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const sentence = (words: number) => Array.from({ length: words }, () => pick(WORDS)).join(' ');
  const history: ChatMessage[] = [];
  let turn = 0;
  while (history.length < target - 1) {
    turn++;
    history.push({ role: 'user', content: `Turn ${turn}: ${sentence(5 + Math.floor(random() * 20))}` });
    const exchanges = Math.floor(random() * 3);
    for (let e = 0; e < exchanges; e++) {
      const width = 1 + Math.floor(random() * 3);
      const calls = Array.from({ length: width }, (_, c) => ({
        id: `call_${(turn * 7 + e * 3 + c) % 97}`,
        type: 'function' as const,
        function: { name: pick(['read_file', 'run']), arguments: JSON.stringify({ path: `src/file-${turn}-${c}.ts` }) },
      }));
      const assistant: AssistantMessage = { role: 'assistant', content: null, tool_calls: calls };
      history.push(assistant);
      for (const callItem of calls) {
        const lines = Math.max(1, Math.floor((random() * maxOutput) / 40));
        const output = Array.from({ length: lines }, (_, l) => `${l + 1}: ${sentence(4)}`).join('\n');
        const result: ToolMessage = { role: 'tool', tool_call_id: callItem.id, content: output };
        history.push(result);
      }
    }
    history.push({ role: 'assistant', content: `Answer ${turn}: ${sentence(8 + Math.floor(random() * 30))}` });
  }
  history.push({ role: 'user', content: `Turn ${turn + 1}: ${sentence(12)} — what next?` });
  return history;
}
