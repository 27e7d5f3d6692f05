import { createTokenCounter, MemoryContextStore, type ToolMessage } from '@ctxkit/core';

import { CachedOutputs } from './cached-outputs';
import * as inContextView from './in-context-view';
import { ToolOutputCache } from './tool-output-cache';

const tool = (content: string, id: string): ToolMessage => ({ role: 'tool', tool_call_id: id, content });

describe('CachedOutputs', () => {
  it('builds a view when first read, once: an output shown only as its placeholder is never scanned', async () => {
    const cache = new ToolOutputCache({
      store: new MemoryContextStore(),
      agentId: 'agent',
      sessionId: 'session',
      maxMessageBytes: 1024,
      maxLineLength: 10,
    });
    const outputs = new CachedOutputs({
      cache,
      counter: createTokenCounter({ model: 'gpt-4o' }),
      emit: () => undefined,
    });
    const build = jest.spyOn(inContextView, 'buildInContextView');
    const { info: cached } = await outputs.ensure(tool('a line longer than ten characters\nshort', 'a'), 1);
    const { info: described } = await outputs.preview.ensure(tool('\u0000\u0001binary', 'b'), 1);
    expect(build).not.toHaveBeenCalled();
    expect([cached!.view.truncated, cached!.view.binary, described!.view.truncated, described!.view.binary]).toEqual([
      true,
      false,
      true,
      true,
    ]);
    expect(cached!.view.text).toContain(`ref=${cached!.ref.id}`);
    expect(cached!.view).toBe(cached!.view);
    expect(build).toHaveBeenCalledTimes(2);
    build.mockRestore();
  });
});
