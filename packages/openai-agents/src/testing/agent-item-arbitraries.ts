import type { ChatMessage } from '@ctxkit/core';
import { arbText, arbToolCallId } from '@ctxkit/core/testing/generators';
import type { AgentInputItem } from '@openai/agents';
import fc from 'fast-check';

/**
 * fast-check arbitraries of Agents SDK input items for the conversion tests. `arbAnyItems` is any
 * sequence of every item kind (in any order, with ids and `providerData`); `arbCanonicalChat` is
 * ctxkit messages that only use what the items carry exactly.
 */

const TOOL_NAMES = ['get_user_details', 'search_direct_flight', 'execute_bash', 'str_replace_editor'] as const;

const providerData = fc.option(
  fc.constantFrom<Record<string, unknown>>({ cache: 'ephemeral' }, { itemId: 'rs_1', nested: { a: [1, 2] } }),
  { nil: undefined },
);
const itemId = fc.option(fc.stringMatching(/^[a-z]{2,4}_[A-Za-z0-9]{1,12}$/), { nil: undefined });

function withOptional<T extends Record<string, unknown>>(base: fc.Arbitrary<T>): fc.Arbitrary<T> {
  return fc.tuple(base, itemId, providerData).map(([item, id, data]) => {
    const out: Record<string, unknown> = { ...item };
    if (id !== undefined) out.id = id;
    if (data !== undefined) out.providerData = data;
    return out as T;
  });
}

const arbJsonArguments = fc
  .dictionary(
    fc.string({ maxLength: 8 }).filter((key) => key !== '__proto__'),
    fc.oneof(arbText(), fc.integer(), fc.boolean()),
    { maxKeys: 4 },
  )
  .map((value) => JSON.stringify(value));

const arbUserPart = fc.oneof(
  arbText().map((text) => ({ type: 'input_text', text })),
  fc
    .tuple(fc.webUrl(), fc.option(fc.constantFrom('auto', 'low', 'high', 'original'), { nil: undefined }))
    .map(([image, detail]) => (detail ? { type: 'input_image', image, detail } : { type: 'input_image', image })),
  fc.constantFrom(
    { type: 'input_image', image: { id: 'file_1' } },
    { type: 'input_file', file: { id: 'file_2' }, filename: 'report.pdf' },
    { type: 'input_file', file: 'https://example.com/a.txt' },
    { type: 'audio', audio: 'UklGRg==', transcript: 'hello there' },
  ),
);

const arbUser = withOptional(
  fc.record(
    {
      type: fc.constantFrom(undefined, 'message'),
      role: fc.constant('user'),
      content: fc.oneof(arbText(), fc.array(arbUserPart, { minLength: 1, maxLength: 4 })),
    },
    { requiredKeys: ['role', 'content'] },
  ),
);

const arbSystem = withOptional(
  fc.record(
    { type: fc.constantFrom(undefined, 'message'), role: fc.constant('system'), content: arbText() },
    { requiredKeys: ['role', 'content'] },
  ),
);

const arbAssistant = withOptional(
  fc.record({
    type: fc.constant('message'),
    role: fc.constant('assistant'),
    status: fc.constantFrom('completed', 'incomplete'),
    content: fc.array(
      fc.oneof(
        arbText().map((text) => ({ type: 'output_text', text })),
        arbText().map((refusal) => ({ type: 'refusal', refusal })),
        fc.constant({ type: 'audio', audio: 'a1', transcript: 'spoken' }),
      ),
      { maxLength: 3 },
    ),
  }),
);

const arbCall = withOptional(
  fc.record(
    {
      type: fc.constant('function_call'),
      callId: arbToolCallId(),
      name: fc.constantFrom(...TOOL_NAMES),
      arguments: arbJsonArguments,
      status: fc.constantFrom(undefined, 'completed'),
    },
    { requiredKeys: ['type', 'callId', 'name', 'arguments'] },
  ),
);

const arbOutput = fc.oneof(
  arbText(),
  arbText().map((text) => ({ type: 'text', text })),
  fc.constant({ type: 'image', image: 'https://example.com/x.png' }),
  fc.array(
    fc.oneof(
      arbText().map((text) => ({ type: 'input_text', text })),
      fc.constant({ type: 'input_image', image: 'https://example.com/y.png' }),
    ),
    { minLength: 1, maxLength: 3 },
  ),
);

const arbResult = withOptional(
  fc.record({
    type: fc.constant('function_call_result'),
    callId: arbToolCallId(),
    name: fc.constantFrom(...TOOL_NAMES),
    status: fc.constantFrom('completed', 'incomplete'),
    output: arbOutput,
  }),
);

const arbReasoning = withOptional(
  fc.record(
    {
      type: fc.constant('reasoning'),
      content: fc.array(
        arbText().map((text) => ({ type: 'input_text', text })),
        { maxLength: 2 },
      ),
      rawContent: fc.constantFrom(undefined, [{ type: 'reasoning_text', text: 'thinking' }]),
    },
    { requiredKeys: ['type', 'content'] },
  ),
);

const arbCarried = fc.constantFrom<Record<string, unknown>>(
  {
    type: 'hosted_tool_call',
    id: 'ws_1',
    name: 'web_search_call',
    status: 'completed',
    arguments: '{"query":"flights"}',
  },
  { type: 'compaction', encrypted_content: 'enc-abc' },
  { type: 'unknown', id: 'x_1', providerData: { kind: 'future-item' } },
  { type: 'computer_call', id: 'cc_1', callId: 'call_c1', status: 'completed', action: { type: 'screenshot' } },
);

/** One input item of any kind. */
export function arbAnyItem(): fc.Arbitrary<AgentInputItem> {
  return fc
    .oneof(arbUser, arbSystem, arbAssistant, arbCall, arbCall, arbResult, arbResult, arbReasoning, arbCarried)
    .map((item) => {
      const out: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(item)) if (value !== undefined) out[key] = value;
      return out as unknown as AgentInputItem;
    });
}

/** Any sequence of input items, in any order (calls without results, results without calls included). */
export function arbAnyItems(): fc.Arbitrary<AgentInputItem[]> {
  return fc.array(arbAnyItem(), { maxLength: 24 });
}

/** ctxkit messages of what the items carry exactly: turns of a user message, tool steps and a final answer. */
export function arbCanonicalChat(): fc.Arbitrary<ChatMessage[]> {
  const step = fc
    .tuple(
      fc.option(
        arbText().filter((text) => text !== ''),
        { nil: null },
      ),
      fc.uniqueArray(arbToolCallId(), { minLength: 1, maxLength: 3 }),
      fc.array(fc.tuple(fc.constantFrom(...TOOL_NAMES), arbJsonArguments, arbText()), { minLength: 3, maxLength: 3 }),
    )
    .map(([content, ids, calls]): ChatMessage[] => [
      {
        role: 'assistant',
        content,
        tool_calls: ids.map((id, index) => ({
          id,
          type: 'function',
          function: { name: calls[index]![0], arguments: calls[index]![1] },
        })),
      },
      ...ids.map((id, index): ChatMessage => ({ role: 'tool', tool_call_id: id, content: calls[index]![2] })),
    ]);
  const user = fc.oneof(
    arbText().map((content): ChatMessage => ({ role: 'user', content })),
    fc
      .array(
        fc.oneof(
          arbText().map((text) => ({ type: 'text' as const, text })),
          fc.webUrl().map((url) => ({ type: 'image_url' as const, image_url: { url, detail: 'low' as const } })),
        ),
        { minLength: 1, maxLength: 3 },
      )
      .map((content): ChatMessage => ({ role: 'user', content })),
  );
  const turn = fc
    .tuple(
      fc.option(
        arbText().map((content): ChatMessage => ({ role: 'system', content })),
        { nil: undefined },
      ),
      user,
      fc.array(step, { maxLength: 3 }),
      arbText().filter((text) => text !== ''),
    )
    .map(([system, first, steps, answer]) => [
      ...(system ? [system] : []),
      first,
      ...steps.flat(),
      { role: 'assistant', content: answer } as ChatMessage,
    ]);
  return fc.array(turn, { maxLength: 4 }).map((turns) => turns.flat());
}
