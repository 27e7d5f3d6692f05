import * as path from 'node:path';
import type { CliOutput } from '../cli-output';
import { runCli } from '../run-cli';

describe('ctxkit compare --transcript', () => {
  it('compares strategies on a plain {"messages": [...]} export without ids', async () => {
    let stdout = '';
    let stderr = '';
    const output: CliOutput = { out: (text) => void (stdout += text), err: (text) => void (stderr += text), color: false, interactive: false };
    const transcript = path.join(__dirname, '..', '__fixtures__', 'transcripts', 'openai-chat.jsonl');
    const code = await runCli(['node', 'ctxkit', 'compare', '--transcript', transcript, '--strategy', 'std-sliding-window-strategy', '--llm', 'offline', '--no-progress'], output);
    expect(stderr).not.toContain('CTXKIT_');
    expect(code).toBe(0);
    // One conversation, three model calls: before each assistant message.
    expect(stderr).toContain('openai-chat · std-sliding-window-strategy: 3 calls');
  });
});
