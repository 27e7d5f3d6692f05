import { createTokenCounter, type ITokenCounter, MemoryContextStore, type ToolMessage } from '@ctxkit/core';
import fc from 'fast-check';

import { CachedOutputs } from '../cache/cached-outputs';
import { ToolOutputCache } from '../cache/tool-output-cache';
import { resolveToolOutputCacheStrategyConfig } from '../tool-output-cache-strategy-config';
import { ViewCells } from './view-cells';

const counters: ReadonlyArray<[string, ITokenCounter]> = [
  ['the real tokenizer', createTokenCounter({ model: 'gpt-4o' })],
  ['the heuristic counter', createTokenCounter({ model: 'gpt-4o', backend: 'heuristic' })],
];

/**
 * Cells over a fresh cache whose views cut lines at 40 characters and outputs at 1,024 bytes (so that cut and binary
 * views are common).
 */
function cells(counter: ITokenCounter): ViewCells {
  const config = resolveToolOutputCacheStrategyConfig({
    toolOutputCache: { maxMessageBytes: 1024, maxLineLength: 40 },
  });
  const cache = new ToolOutputCache({
    store: new MemoryContextStore(),
    agentId: 'agent',
    sessionId: 'session',
    maxMessageBytes: 1024,
    maxLineLength: 40,
  });
  const outputs = new CachedOutputs({
    cache,
    counter,
    emit: () => undefined,
  });
  return new ViewCells({ config, counter, outputs });
}

/**
 * Outputs of every kind a view treats differently: short lines, long lines, long outputs, binary data, placeholders.
 */
const outputText = fc.oneof(
  fc.array(fc.string({ maxLength: 30 }), { maxLength: 80 }).map((lines) => lines.join('\n')),
  fc.array(fc.string({ minLength: 30, maxLength: 200 }), { maxLength: 20 }).map((lines) => lines.join('\n')),
  fc.tuple(fc.string({ maxLength: 20 }), fc.integer({ min: 1, max: 3000 })).map(([text, times]) => text.repeat(times)),
  fc.uint8Array({ maxLength: 3000 }).map((bytes) => String.fromCharCode(...bytes)),
  fc.constantFrom('[tool output trimmed; ref=to_0123456789abcdef0123456789abcdef]', '', 'ok'),
);

describe('ViewCells', () => {
  describe.each(counters)('#trimmable with %s', (_name, counter) => {
    it("tells whether an output's placeholder is smaller the same way before its view is made as after", async () => {
      await fc.assert(
        fc.asyncProperty(outputText, async (content) => {
          const message: ToolMessage = { role: 'tool', tool_call_id: 'c1', content };
          const unviewed = await cells(counter).at(0, message, 1);
          const viewed = await cells(counter).at(0, message, 1);
          expect(viewed.shown.message).toBeDefined();
          expect(viewed.viewed).toBe(true);
          const told = cells(counter);
          expect(told.trimmable(unviewed, unviewed.shown)).toBe(told.trimmable(viewed, viewed.shown));
        }),
        { numRuns: 150 },
      );
    });
  });

  describe('#at', () => {
    it('makes the shown message of a long output only when it is read, and the same copies either way', async () => {
      const counter = createTokenCounter({ model: 'gpt-4o' });
      const view = cells(counter);
      const message: ToolMessage = { role: 'tool', tool_call_id: 'c1', content: 'x'.repeat(50_000) };
      const cell = await view.at(0, message, 1);
      expect(view.trimmable(cell, cell.shown)).toBe(true);
      const placeholder = view.trimmed(cell)!.message;
      expect(cell.viewed).toBe(false);
      expect(cell.shown.message.content).toContain(`ref=${cell.ref!.id}`);
      expect(cell.viewed).toBe(true);
      // A placeholder made from the shown copy afterwards (as the pressure relief does) is the same object.
      expect(view.copies.withContent(cell.shown.message as ToolMessage, placeholder.content as string)).toBe(
        placeholder,
      );
    });
  });
});
