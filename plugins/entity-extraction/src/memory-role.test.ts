import type { ChatMessage, LLMPayload } from '@ctxkit/core';
import { contentText, findPayloadProblems } from '@ctxkit/core/strategy-kit';
import { createConformanceContext, ScriptedLLMClient } from '@ctxkit/core/testing';

import { createStrategy } from './create-entity-extraction-strategy';
import type { EntityExtractionConfig } from './entity-extraction-config';
import { STATE_BLOCK_PREAMBLE } from './payload/render-state-block';

const SYSTEM = 'You book flights.';
const stateSchema = {
  type: 'object',
  properties: { destination: { type: 'string' } },
  required: ['destination'],
  additionalProperties: false,
};
const history: ChatMessage[] = [{ role: 'user', content: 'I want to fly to Seattle.' }];

async function payloadWith(config: Partial<EntityExtractionConfig> = {}): Promise<LLMPayload> {
  const llm = new ScriptedLLMClient(['{"destination": "Seattle"}']);
  const { context } = createConformanceContext(
    'memory-role',
    { agentId: 'agent', strategyId: 'std-entity-extraction-strategy', llm },
    undefined,
  );
  const strategy = createStrategy({ stateSchema, ...config }, context);
  return strategy.composePayload(SYSTEM, history, []);
}

describe('where the state block is sent (memoryRole)', () => {
  it('sends the state in a framed user message by default: no system message but the system prompt', async () => {
    const payload = await payloadWith();
    expect(payload.messages.filter((message) => message.role === 'system')).toEqual([
      { role: 'system', content: SYSTEM },
    ]);
    expect(payload.messages[1]).toEqual({
      role: 'user',
      content: expect.stringContaining(
        '<conversation_state version="1">\n{\n"destination": "Seattle"\n}\n</conversation_state>',
      ),
    });
    expect(contentText(payload.messages[1]!.content).startsWith(`${STATE_BLOCK_PREAMBLE}\n<conversation_state`)).toBe(
      true,
    );
    expect(payload.messages.slice(2)).toEqual(history);
    expect(findPayloadProblems(payload.messages)).toEqual([]);
  });

  it('sends it in a system message before the history with memoryRole "system"', async () => {
    const payload = await payloadWith({ memoryRole: 'system' });
    expect(payload.messages[1]).toEqual({
      role: 'system',
      content: expect.stringMatching(
        /^<conversation_state version="1">\n\{\n"destination": "Seattle"\n\}\n<\/conversation_state>/,
      ),
    });
    expect(payload.messages.slice(2)).toEqual(history);
  });
});
