import type { ChatMessage } from '../contracts/chat-message';
import { seededRandom } from './synthetic-history';

const JAPANESE = [
  'このファイルの変更点を説明してください。',
  'テストが失敗しています。ログを確認して原因を特定してください。',
  '設定ファイルのタイムアウト値を三十秒に変更しました。',
  '東京の天気は晴れ、最高気温は二十五度の予報です。',
];

function fileRead(random: () => number, lines: number): string {
  const out: string[] = [];
  for (let line = 1; line <= lines; line++) {
    const indent = '  '.repeat(Math.floor(random() * 4));
    out.push(
      `${String(line).padStart(5)}\t${indent}const value${line} = compute(${Math.floor(random() * 1000)}, ` +
        `"${random().toString(36).slice(2, 8)}");`,
    );
  }
  return out.join('\n');
}

function logOutput(random: () => number, lines: number): string {
  const out: string[] = [];
  for (let line = 0; line < lines; line++) {
    out.push(
      `2024-05-${String(1 + (line % 28)).padStart(2, '0')}T12:${String(line % 60).padStart(2, '0')}:00Z INFO ` +
        `worker-${Math.floor(random() * 8)} request ${Math.floor(random() * 1e6)} handled ` +
        `in ${Math.floor(random() * 900)} ms`,
    );
  }
  return out.join('\n');
}

/**
 * A coding-agent history of `count` messages: user requests (some Japanese), assistant tool calls
 * (read_file, run_command, web_fetch), their outputs (file reads up to 400 lines, logs, Japanese
 * pages) and assistant answers. Always ends with a user message.
 */
export function generateCodingHistory(count: number, seed: number): ChatMessage[] {
  const random = seededRandom(seed);
  const history: ChatMessage[] = [];
  let call = 0;
  while (history.length < count - 1) {
    const japanese = random() < 0.2;
    history.push({
      role: 'user',
      content: japanese
        ? JAPANESE[Math.floor(random() * JAPANESE.length)]!
        : `Please check step ${history.length} of the build and fix what fails.`,
    });
    const exchanges = 1 + Math.floor(random() * 2);
    for (let exchange = 0; exchange < exchanges && history.length < count - 2; exchange++) {
      const id = `call_${++call}`;
      const kind = random();
      const name = kind < 0.45 ? 'read_file' : kind < 0.85 ? 'run_command' : 'web_fetch';
      history.push({
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id,
            type: 'function',
            function: { name, arguments: JSON.stringify({ path: `src/module-${call % 97}.ts`, limit: 400 }) },
          },
        ],
      });
      const output =
        name === 'read_file'
          ? fileRead(random, 20 + Math.floor(random() * 380))
          : name === 'run_command'
            ? logOutput(random, 10 + Math.floor(random() * 150))
            : JAPANESE.join('').repeat(2 + Math.floor(random() * 20));
      history.push({ role: 'tool', tool_call_id: id, content: output });
    }
    if (history.length < count - 1)
      history.push({
        role: 'assistant',
        content: `Done with step ${history.length}: the change compiles and the tests pass.`,
      });
  }
  history.push({ role: 'user', content: 'What is the status now?' });
  return history.slice(0, count);
}
