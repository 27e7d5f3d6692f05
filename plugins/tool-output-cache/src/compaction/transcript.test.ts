import { type ChatMessage, MemoryContextStore } from '@ctxkit/core';

import { readTranscript, saveTranscript, TranscriptMissingError } from './transcript';

const owner = { agentId: 'agent', sessionId: 'session' };

describe('readTranscript', () => {
  it("reads back exactly the messages a transcript was saved with, across the writer's pieces", async () => {
    const store = new MemoryContextStore();
    const history: ChatMessage[] = [
      { role: 'user', content: 'Line one\nline two — 東京 👨‍👩‍👧 "quoted" \\ backslash' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'run', arguments: '{"cmd":"ls\\n"}' } }],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'x'.repeat(1_500_000) + '\n' + 'y'.repeat(700_000) },
      { role: 'user', content: [{ type: 'text', text: 'parts' }] },
    ];
    const ref = await saveTranscript(store, owner, history, Date.UTC(2025, 0, 1));
    expect(await readTranscript(store, owner, ref)).toEqual(history);
  });

  it('refuses a ref that is not stored or not a transcript ref, and a line that is not a message', async () => {
    const store = new MemoryContextStore();
    await expect(readTranscript(store, owner, 'transcript:transcript_1.jsonl')).rejects.toBeInstanceOf(
      TranscriptMissingError,
    );
    await expect(readTranscript(store, owner, 'to_0123')).rejects.toMatchObject({
      code: 'CTXKIT_STORE_ERROR',
      message: expect.stringContaining('not a transcript ref'),
    });
    await store.putBlob(
      { ...owner, kind: 'transcript', name: 'broken.jsonl' },
      '{"role":"user","content":"ok"}\n[1,2]\n',
    );
    await expect(readTranscript(store, owner, 'transcript:broken.jsonl')).rejects.toThrow(/line 2 is not a message/);
  });
});
