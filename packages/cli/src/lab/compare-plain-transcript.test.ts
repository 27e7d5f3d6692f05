import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import type { CliOutput } from '../cli-output';
import type { ComparisonResult } from '../commands/compare-command';
import { runCli } from '../run-cli';

async function compare(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const output: CliOutput = {
    out: (text) => void (stdout += text),
    err: (text) => void (stderr += text),
    color: false,
    interactive: false,
  };
  const code = await runCli(
    [
      'node',
      'ctxkit',
      'compare',
      ...args,
      '--strategy',
      'std-sliding-window-strategy',
      '--llm',
      'offline',
      '--no-progress',
    ],
    output,
  );
  return { code, stdout, stderr };
}

describe('ctxkit compare --transcript', () => {
  let tmp: string;
  beforeAll(() => (tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ctxkit-compare-'))));
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('compares strategies on a plain {"messages": [...]} export without ids', async () => {
    const transcript = path.join(__dirname, '..', '__fixtures__', 'transcripts', 'openai-chat.jsonl');
    const { code, stderr } = await compare(['--transcript', transcript]);
    expect(stderr).not.toContain('CTXKIT_');
    expect(code).toBe(0);
    // One conversation, three model calls: before each assistant message.
    expect(stderr).toContain('openai-chat · std-sliding-window-strategy: 3 calls');
  });

  it(
    "reports fact retention on the transcript's own tool calls: what the window dropped before a call needed " + 'it',
    async () => {
      const call = (id: string, name: string, args: Record<string, string>) => ({
        role: 'assistant',
        content: null,
        tool_calls: [{ id, type: 'function', function: { name, arguments: JSON.stringify(args) } }],
      });
      const chatter = (turn: number) => [
        {
          role: 'user',
          content:
            `Question ${turn}: ` +
            `${(
              'How long do deliveries usually take around the holidays, and can I change the address later ' + 'on? '
            ).repeat(6)}`,
        },
        {
          role: 'assistant',
          content:
            `Answer ${turn}: ` +
            `${(
              'Deliveries take two to four days around the holidays, and the address can be changed until ' +
              'dispatch. '
            ).repeat(6)}`,
        },
      ];
      const messages = [
        { role: 'system', content: 'You are a shop assistant.' },
        { role: 'user', content: 'Hi, I am customer CUST-7781 and my order A-1042 is late.' },
        call('c1', 'get_order', { order_id: 'A-1042' }),
        { role: 'tool', tool_call_id: 'c1', content: '{"status":"delayed","warehouse":"WH-LEEDS-3"}' },
        { role: 'assistant', content: 'Your order is held at our Leeds warehouse.' },
        ...[1, 2, 3, 4, 5].flatMap(chatter),
        { role: 'user', content: 'Please open a claim for it.' },
        call('c2', 'open_claim', {
          customer: 'CUST-7781',
          order_id: 'A-1042',
          warehouse: 'WH-LEEDS-3',
          reason: 'delayed',
        }),
        { role: 'tool', tool_call_id: 'c2', content: 'Claim opened.' },
        { role: 'assistant', content: 'Your claim is open.' },
      ];
      const file = path.join(tmp, 'claims.jsonl');
      fs.writeFileSync(file, `${JSON.stringify({ messages })}\n`);
      // Facts, by hand: get_order needs A-1042 (the user's first message); open_claim needs CUST-7781 and
      // A-1042 (that message) and WH-LEEDS-3 (get_order's output); "delayed" is a plain word, not checked.
      // Plain recency (cutBackRatio 1) unless `plain` is false: the default keeps the conversation's first
      // messages in front of a cut.
      const retention = async (window: number, plain = true): Promise<{ checks: number; retention: number | null }> => {
        const json = path.join(tmp, `claims-${window}-${plain}.json`);
        const config = plain ? ['--config', 'std-sliding-window-strategy={"cutBackRatio":1}'] : [];
        const { code } = await compare(['--transcript', file, '--window', String(window), ...config, '--json', json]);
        expect(code).toBe(0);
        const [row] = (JSON.parse(fs.readFileSync(json, 'utf8')) as ComparisonResult).summaries;
        return { checks: row!.factChecks, retention: row!.factRetention };
      };
      // A window that holds the whole conversation keeps all four.
      expect(await retention(16_384)).toEqual({ checks: 4, retention: 1 });
      // At 1,024 tokens (about 800 of room) the sliding window has dropped the first four messages when
      // open_claim is called (1,260 tokens of questions and answers came after them): only get_order's fact is kept.
      expect(await retention(1_024)).toEqual({ checks: 4, retention: 0.25 });
      // The default window keeps the first messages (the customer and the order) in front of the cut.
      expect((await retention(1_024, false)).retention).toBeGreaterThan(0.25);
    },
  );
});
