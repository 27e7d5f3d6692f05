import {
  AIMessage,
  AIMessageChunk,
  type BaseMessage,
  HumanMessage,
  SystemMessage,
  ToolMessage,
} from '@langchain/core/messages';
import fc from 'fast-check';

const text = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.constantFrom('Bonjour', 'ツールを使って', '🛫 flight', 'line\nbreak', ''),
);
const id = fc.stringMatching(/^[a-z0-9_]{1,12}$/);
const json = fc.jsonValue({ maxDepth: 2 });
const record = fc.dictionary(fc.stringMatching(/^[a-z_]{1,8}$/), json, { maxKeys: 3 });

const textBlock = fc
  .record({ type: fc.constant('text'), text }, { requiredKeys: ['type', 'text'] })
  .chain((block) =>
    fc
      .option(fc.constant({ type: 'ephemeral' }), { nil: undefined })
      .map((cache) => (cache ? { ...block, cache_control: cache } : block)),
  );
const imageBlock = fc.oneof(
  fc.webUrl().map((url) => ({ type: 'image_url', image_url: url })),
  fc
    .record({ url: fc.webUrl(), detail: fc.constantFrom('auto', 'low', 'high') })
    .map((image_url) => ({ type: 'image_url', image_url })),
  fc.webUrl().map((url) => ({ type: 'image', url })),
  fc.base64String({ minLength: 4, maxLength: 40 }).map((data) => ({ type: 'image', data, mimeType: 'image/png' })),
  fc
    .base64String({ minLength: 4, maxLength: 40 })
    .map((data) => ({ type: 'image', source_type: 'base64', data, mime_type: 'image/jpeg' })),
  id.map((fileId) => ({ type: 'image', fileId })),
);
/** Blocks ctxkit has no slot for. */
const otherBlock = fc.oneof(
  fc.webUrl().map((url) => ({ type: 'file', url, mimeType: 'application/pdf' })),
  fc.base64String({ minLength: 4, maxLength: 40 }).map((data) => ({ type: 'audio', data, mimeType: 'audio/wav' })),
  fc.webUrl().map((url) => ({ type: 'video', url, mimeType: 'video/mp4' })),
  fc.record({ id, input: record }).map((use) => ({ type: 'tool_use', name: 'search', ...use })),
  record.map((value) => ({ type: 'non_standard', value })),
);
const reasoningBlock = fc.oneof(
  text.map((reasoning) => ({ type: 'reasoning', reasoning })),
  fc.record({ thinking: text, signature: id }).map((block) => ({ type: 'thinking', ...block })),
  id.map((data) => ({ type: 'redacted_thinking', data })),
);
const toolCall = fc
  .record({ id, name: fc.constantFrom('search', 'get_user_details', 'think'), args: record })
  .map((call) => ({ ...call, type: 'tool_call' as const }));

const base = fc.record({
  id: fc.option(id, { nil: undefined }),
  name: fc.option(fc.constantFrom('alice', 'model'), { nil: undefined }),
  additional_kwargs: fc.option(record, { nil: undefined }),
});
function fields<T extends object>(
  common: { id?: string; name?: string; additional_kwargs?: Record<string, unknown> },
  rest: T,
): T & Record<string, unknown> {
  const out: Record<string, unknown> = { ...(rest as Record<string, unknown>) };
  for (const [key, value] of Object.entries(common)) if (value !== undefined) out[key] = value;
  return out as T & Record<string, unknown>;
}

/** A LangChain system message: a string or text blocks (some with cache control). */
export const arbSystemMessage = fc
  .tuple(base, fc.oneof(text, fc.array(textBlock, { maxLength: 3 })))
  .map(([common, content]) => new SystemMessage(fields(common, { content }) as never));

/** A LangChain human message: a string, or text, image (every form), file, audio and provider blocks. */
export const arbHumanMessage = fc
  .tuple(
    base,
    fc.oneof(
      text,
      fc.array(
        fc.oneof(
          { weight: 3, arbitrary: textBlock },
          { weight: 2, arbitrary: imageBlock },
          { weight: 1, arbitrary: otherBlock },
        ),
        { maxLength: 4 },
      ),
    ),
  )
  .map(([common, content]) => new HumanMessage(fields(common, { content }) as never));

/**
 * A LangChain AI message (sometimes a chunk): text or blocks with reasoning and thinking, tool calls, invalid calls,
 * usage.
 */
export const arbAIMessage = fc
  .tuple(
    base,
    fc.oneof(
      text,
      fc.array(
        fc.oneof(
          { weight: 3, arbitrary: textBlock },
          { weight: 2, arbitrary: reasoningBlock },
          { weight: 1, arbitrary: otherBlock },
        ),
        { maxLength: 4 },
      ),
    ),
    fc.uniqueArray(toolCall, { maxLength: 3, selector: (call) => call.id }),
    fc.option(
      fc.record({
        id,
        name: fc.constant('search'),
        args: fc.constant('{"q": '),
        error: fc.constant('bad json'),
        type: fc.constant('invalid_tool_call' as const),
      }),
      { nil: undefined },
    ),
    fc.option(fc.record({ input_tokens: fc.nat(), output_tokens: fc.nat(), total_tokens: fc.nat() }), {
      nil: undefined,
    }),
    fc.option(fc.constantFrom('openai', 'anthropic'), { nil: undefined }),
    fc.boolean(),
  )
  .map(([common, content, toolCalls, invalid, usage, provider, chunk]) => {
    const init = fields(common, {
      content,
      tool_calls: toolCalls,
      ...(invalid ? { invalid_tool_calls: [invalid] } : {}),
      ...(usage ? { usage_metadata: usage } : {}),
      ...(provider ? { response_metadata: { model_provider: provider } } : {}),
    });
    return chunk ? new AIMessageChunk(init as never) : new AIMessage(init as never);
  });

/** A LangChain tool message: a string or text and image blocks, status, artifact, metadata. */
export const arbToolMessage = fc
  .tuple(
    base,
    fc.oneof(text, fc.array(fc.oneof(textBlock, imageBlock), { maxLength: 3 })),
    id,
    fc.option(fc.constantFrom('success', 'error'), { nil: undefined }),
    fc.option(json, { nil: undefined }),
    fc.option(record, { nil: undefined }),
  )
  .map(
    ([common, content, toolCallId, status, artifact, metadata]) =>
      new ToolMessage(
        fields(common, {
          content,
          tool_call_id: toolCallId,
          ...(status ? { status } : {}),
          ...(artifact !== undefined ? { artifact } : {}),
          ...(metadata ? { metadata } : {}),
        }) as never,
      ),
  );

/** Any convertible LangChain message. */
export const arbLangChainMessage: fc.Arbitrary<BaseMessage> = fc.oneof(
  arbSystemMessage,
  arbHumanMessage,
  arbAIMessage,
  arbToolMessage,
);

/** Every field of a LangChain message that a model call or a caller can see, for comparisons. */
export function messageFields(message: BaseMessage, options: { artifact?: boolean } = {}): Record<string, unknown> {
  const source = message as unknown as Record<string, unknown>;
  const out: Record<string, unknown> = {
    class: message.constructor.name,
    type: message.type,
    content: message.content,
  };
  for (const key of [
    'id',
    'name',
    'additional_kwargs',
    'response_metadata',
    'tool_calls',
    'invalid_tool_calls',
    'usage_metadata',
    'tool_call_id',
    'status',
    'metadata',
  ]) {
    if (source[key] !== undefined) out[key] = source[key];
  }
  if (options.artifact !== false && source.artifact !== undefined) out.artifact = source.artifact;
  return out;
}
