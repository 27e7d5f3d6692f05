import 'reflect-metadata';

import {
  type ContextRuntime,
  createContextRuntime,
  type CtxkitEventPayloads,
  type LLMCompletionRequest,
  PIN_CONTEXT_TOOL,
  UNPIN_CONTEXT_TOOL,
} from '@ctxkit/core';
import { contentText } from '@ctxkit/core/strategy-kit';
import { ScriptedLLMClient } from '@ctxkit/core/testing';
import { createAgent } from '@ctxkit/kernel';

/**
 * The pin tool end to end: an agent manifest with `"pinTool": true` (plugin.json → loader → DI →
 * kernel) offers the model pin_context and unpin_context; what the model pins is in every later
 * request, in the pinned block's own user message right after the system prompt (never in a system
 * message: the model wrote it), until the model unpins it.
 */

const FACT = 'The customer is Ada Lovelace, booking ABC123, window seat.';
const systemOf = (request: LLMCompletionRequest) =>
  request.messages[0]?.role === 'system' ? contentText(request.messages[0].content) : '';
const secondOf = (request: LLMCompletionRequest) => request.messages[1];

describe('the pin tool through the kernel', () => {
  let runtime: ContextRuntime;

  beforeEach(async () => {
    runtime = await createContextRuntime();
  });
  afterEach(async () => {
    await runtime.dispose();
  });

  it(
    'lets the model pin a fact that every later request carries after the system prompt, in a user message, and ' +
      'unpin it',
    async () => {
      const handle = await runtime.loadAgent({
        id: 'pinning-agent',
        systemPrompt: 'You book flights.',
        pinTool: true,
        contextStrategy: {
          type: 'plugin',
          pluginId: 'std-sliding-window-strategy',
          config: { maxContextTokens: 8000 },
        },
      });
      const added: Array<CtxkitEventPayloads['pin-added']> = [];
      handle.events.on('pin-added', (event) => added.push(event));
      const llm = new ScriptedLLMClient([
        {
          content: null,
          tool_calls: [
            {
              id: 'call_pin',
              type: 'function',
              function: { name: PIN_CONTEXT_TOOL, arguments: JSON.stringify({ text: FACT, label: 'customer' }) },
            },
          ],
        },
        'Noted your booking.',
        'Your seat is confirmed.',
        {
          content: null,
          tool_calls: [
            {
              id: 'call_unpin',
              type: 'function',
              function: { name: UNPIN_CONTEXT_TOOL, arguments: JSON.stringify({ id: 'p1' }) },
            },
          ],
        },
        'Done.',
        'Anything else?',
      ]);
      const agent = createAgent(handle, { llm });
      const first = await agent.run('I am Ada Lovelace, booking ABC123, and I want a window seat.', {
        sessionId: 'booking-1',
      });
      expect(llm.requests[0]!.tools!.map((tool) => tool.function.name)).toEqual(
        expect.arrayContaining([PIN_CONTEXT_TOOL, UNPIN_CONTEXT_TOOL]),
      );
      expect(first.messages.find((message) => message.role === 'tool')).toMatchObject({
        tool_call_id: 'call_pin',
        content: expect.stringContaining('Pinned as p1'),
      });
      expect(added).toEqual([
        expect.objectContaining({
          sessionId: 'booking-1',
          pin: expect.objectContaining({ id: 'p1', label: 'customer', text: FACT }),
        }),
      ]);
      const block = {
        role: 'user',
        content: expect.stringMatching(new RegExp(`\n<pinned>\n\\[pin p1 · customer\\]\n${FACT}\n</pinned>$`)),
      };
      expect(systemOf(llm.requests[0]!)).toBe('You book flights.');
      expect(systemOf(llm.requests[1]!)).toBe('You book flights.');
      expect(secondOf(llm.requests[1]!)).toEqual(block);

      await agent.run('Is my seat confirmed?', { sessionId: 'booking-1' });
      expect(systemOf(llm.requests[2]!)).toBe('You book flights.');
      expect(secondOf(llm.requests[2]!)).toEqual(block);
      for (const request of llm.requests)
        expect(
          request.messages
            .filter((message) => message.role === 'system')
            .map((message) => contentText(message.content))
            .join(),
        ).not.toContain(FACT);
      expect(await handle.forSession('booking-1').pins()).toHaveLength(1);
      expect(await handle.forSession('booking-2').pins()).toEqual([]);

      await agent.run('Forget my booking details.', { sessionId: 'booking-1' });
      expect(systemOf(llm.requests[4]!)).toBe('You book flights.');
      expect(await handle.forSession('booking-1').pins()).toEqual([]);
    },
  );
});
