import { arbText, arbToolCallId } from '@ctxkit/core/testing/generators';
import type { AssistantModelMessage, ModelMessage, SystemModelMessage, ToolModelMessage, UserModelMessage } from 'ai';
import fc from 'fast-check';

import type { AssistantPart, ToolPart, UserPart } from '../ai-sdk-types';

/**
 * fast-check arbitraries of AI SDK messages for the conversion tests. `arbCanonicalConversation`
 * holds only what ctxkit's fields carry exactly (so a round trip through JSON gives the same
 * messages); `arbAnyMessages` holds every part type and data form the AI SDK accepts.
 */

const TOOL_NAMES = ['get_user_details', 'search_direct_flight', 'execute_bash', 'str_replace_editor'] as const;

/** A URL in the form `new URL()` writes it. */
export function arbUrl(): fc.Arbitrary<URL> {
  return fc.webUrl({ withQueryParameters: true }).map((url) => new URL(url));
}

/** A JSON object as a tool's input (no `-0`, no `__proto__` key: values that survive JSON text exactly). */
export function arbToolInput(): fc.Arbitrary<Record<string, unknown>> {
  const key = fc.string({ maxLength: 12 }).filter((name) => name !== '__proto__');
  const leaf = fc.oneof(arbText(), fc.integer(), fc.boolean(), fc.constant(null));
  return fc.dictionary(
    key,
    fc.oneof(leaf, fc.array(leaf, { maxLength: 3 }), fc.dictionary(key, leaf, { maxKeys: 3 })),
    { maxKeys: 5 },
  );
}

function arbBase64(): fc.Arbitrary<string> {
  return fc.uint8Array({ minLength: 1, maxLength: 64 }).map((bytes) => Buffer.from(bytes).toString('base64'));
}

type ProviderOptions = Record<string, Record<string, string | Record<string, string>>>;
const providerOptions: fc.Arbitrary<ProviderOptions> = fc.constantFrom<ProviderOptions>(
  { anthropic: { cacheControl: { type: 'ephemeral' } } },
  { openai: { itemId: 'rs_1' } },
);
const signature: fc.Arbitrary<ProviderOptions> = fc
  .string({ minLength: 1, maxLength: 20 })
  .map((value) => ({ anthropic: { signature: value } }));

/** An image as a canonical file part: base64 data with a full media type, or a URL with `image`. */
function arbCanonicalImage(): fc.Arbitrary<UserPart> {
  return fc.oneof(
    fc
      .tuple(arbBase64(), fc.constantFrom('image/png', 'image/jpeg'))
      .map(([data, mediaType]): UserPart => ({ type: 'file', mediaType, data: { type: 'data', data } })),
    arbUrl().map((url): UserPart => ({ type: 'file', mediaType: 'image', data: { type: 'url', url } })),
  );
}

/** Assistant parts ctxkit carries as `ai-sdk` reasoning items, in JSON-safe canonical forms. */
function arbCanonicalKeptPart(): fc.Arbitrary<AssistantPart> {
  return fc.oneof(
    fc.record({ type: fc.constant('reasoning' as const), text: arbText(), providerOptions: signature }),
    fc.record({ type: fc.constant('reasoning' as const), text: arbText() }),
    fc
      .tuple(arbBase64())
      .map(([data]): AssistantPart => ({ type: 'file', mediaType: 'image/png', data: { type: 'data', data } })),
    arbUrl().map((url): AssistantPart => ({
      type: 'reasoning-file',
      mediaType: 'image/png',
      data: { type: 'url', url },
    })),
    fc.record({
      type: fc.constant('custom' as const),
      kind: fc.constant('openai.compaction' as const),
      providerOptions,
    }),
    fc.tuple(arbToolCallId(), arbToolInput()).map(([toolCallId, input]): AssistantPart => ({
      type: 'tool-call',
      toolCallId,
      toolName: 'web_search',
      input,
      providerExecuted: true,
    })),
    fc.tuple(arbToolCallId(), arbToolInput()).map(([toolCallId, value]): AssistantPart => ({
      type: 'tool-result',
      toolCallId,
      toolName: 'web_search',
      output: { type: 'json', value: value as never },
    })),
    arbToolCallId().map((toolCallId): AssistantPart => ({
      type: 'tool-approval-request',
      approvalId: `approval-${toolCallId}`,
      toolCallId,
    })),
  );
}

/** `parts` with `inserts` placed at random positions (kept parts among text and tool calls). */
function interleave<T>(parts: T[], inserts: T[]): fc.Arbitrary<T[]> {
  return fc.array(fc.nat(), { minLength: inserts.length, maxLength: inserts.length }).map((positions) => {
    const result = [...parts];
    inserts.forEach((insert, index) => result.splice(positions[index]! % (result.length + 1), 0, insert));
    return result;
  });
}

/**
 * One tool-using step: an assistant message with calls (and kept parts anywhere) and one tool message answering them in
 * order.
 */
function arbCanonicalToolStep(): fc.Arbitrary<ModelMessage[]> {
  return fc
    .record({
      text: fc.option(arbText(), { nil: undefined }),
      calls: fc.array(
        fc.record({
          id: arbToolCallId(),
          name: fc.constantFrom(...TOOL_NAMES),
          input: arbToolInput(),
          output: arbText(),
        }),
        { minLength: 1, maxLength: 3 },
      ),
      kept: fc.array(arbCanonicalKeptPart(), { maxLength: 3 }),
    })
    .chain(({ text, calls, kept }) => {
      const canonical: AssistantPart[] = [
        ...(text !== undefined ? [{ type: 'text' as const, text }] : []),
        ...calls.map((call): AssistantPart => ({
          type: 'tool-call',
          toolCallId: call.id,
          toolName: call.name,
          input: call.input,
        })),
      ];
      return interleave(canonical, kept).map((content): ModelMessage[] => [
        { role: 'assistant', content },
        {
          role: 'tool',
          content: calls.map((call): ToolPart => ({
            type: 'tool-result',
            toolCallId: call.id,
            toolName: call.name,
            output: { type: 'text', value: call.output },
          })),
        },
      ]);
    });
}

function arbCanonicalUser(): fc.Arbitrary<UserModelMessage> {
  return fc.oneof(
    arbText().map((content): UserModelMessage => ({ role: 'user', content })),
    fc
      .array(
        fc.oneof(
          arbText().map((text): UserPart => ({ type: 'text', text })),
          arbCanonicalImage(),
        ),
        { minLength: 1, maxLength: 3 },
      )
      .map((content): UserModelMessage => ({ role: 'user', content })),
  );
}

function arbCanonicalFinalAnswer(): fc.Arbitrary<AssistantModelMessage> {
  return fc.oneof(
    arbText().map((content): AssistantModelMessage => ({ role: 'assistant', content })),
    fc
      .tuple(fc.option(arbText(), { nil: undefined }), fc.array(arbCanonicalKeptPart(), { minLength: 1, maxLength: 2 }))
      .chain(([text, kept]) =>
        interleave(text !== undefined ? [{ type: 'text' as const, text }] : [], kept).map(
          (content): AssistantModelMessage => ({ role: 'assistant', content }),
        ),
      ),
  );
}

/**
 * A conversation in the forms ctxkit's fields carry exactly: a system message, then turns of a
 * user message, tool-using steps (each answered by one tool message, results in call order) and
 * a final answer.
 */
export function arbCanonicalConversation(): fc.Arbitrary<ModelMessage[]> {
  const turn = fc
    .tuple(
      arbCanonicalUser(),
      fc.array(arbCanonicalToolStep(), { maxLength: 2 }),
      fc.option(arbCanonicalFinalAnswer(), { nil: undefined }),
    )
    .map(([user, steps, answer]) => [user, ...steps.flat(), ...(answer ? [answer] : [])]);
  return fc
    .tuple(fc.option(arbText(), { nil: undefined }), fc.array(turn, { minLength: 1, maxLength: 4 }))
    .map(([system, turns]) => [
      ...(system !== undefined ? [{ role: 'system', content: system } satisfies SystemModelMessage] : []),
      ...turns.flat(),
    ]);
}

/** Image or file data in any form the AI SDK accepts. */
function arbAnyData(): fc.Arbitrary<unknown> {
  return fc.oneof(
    fc.uint8Array({ minLength: 1, maxLength: 32 }).map((bytes) => Buffer.from(bytes)),
    fc.uint8Array({ minLength: 1, maxLength: 32 }).map((bytes) => bytes.buffer),
    arbBase64(),
    arbUrl(),
    arbUrl().map((url) => url.href),
    arbBase64().map((data) => ({ type: 'data', data })),
    arbUrl().map((url) => ({ type: 'url', url })),
    fc.constant({ type: 'reference', reference: { openai: 'file-abc' } }),
    arbText().map((text) => ({ type: 'text', text })),
  );
}

function arbAnyUserPart(): fc.Arbitrary<UserPart> {
  return fc.oneof(
    fc.record({ type: fc.constant('text' as const), text: arbText() }, { requiredKeys: ['type', 'text'] }),
    fc.record({ type: fc.constant('text' as const), text: arbText(), providerOptions }),
    fc
      .record({
        type: fc.constant('image' as const),
        image: arbAnyData().filter((data) => !(typeof data === 'object' && data !== null && 'type' in data)),
        mediaType: fc.constantFrom('image/png', 'image'),
      })
      .map((part) => part as unknown as UserPart),
    fc
      .record({
        type: fc.constant('file' as const),
        data: arbAnyData(),
        mediaType: fc.constantFrom('image/png', 'application/pdf', 'text/plain', 'image'),
        filename: fc.constantFrom('report.pdf', 'notes.txt'),
      })
      .map((part) => part as unknown as UserPart),
    fc
      .record({
        type: fc.constant('image' as const),
        image: arbUrl(),
        providerOptions: fc.constantFrom({ openai: { imageDetail: 'low' } }, { openai: { imageDetail: 'high' } }),
      })
      .map((part) => part as unknown as UserPart),
  );
}

function arbAnyToolOutput(): fc.Arbitrary<unknown> {
  return fc.oneof(
    arbText().map((value) => ({ type: 'text', value })),
    arbToolInput().map((value) => ({ type: 'json', value })),
    arbText().map((value) => ({ type: 'error-text', value })),
    arbToolInput().map((value) => ({ type: 'error-json', value })),
    fc
      .option(arbText(), { nil: undefined })
      .map((reason) => (reason === undefined ? { type: 'execution-denied' } : { type: 'execution-denied', reason })),
    fc.tuple(arbText(), arbBase64()).map(([text, data]) => ({
      type: 'content',
      value: [
        { type: 'text', text },
        { type: 'file', mediaType: 'image/png', data: { type: 'data', data } },
        { type: 'custom' },
      ],
    })),
  );
}

function arbAnyAssistantPart(): fc.Arbitrary<AssistantPart> {
  return fc.oneof(
    fc.record({ type: fc.constant('text' as const), text: arbText() }),
    fc.record({ type: fc.constant('text' as const), text: arbText(), providerOptions }),
    fc
      .record({
        type: fc.constant('tool-call' as const),
        toolCallId: arbToolCallId(),
        toolName: fc.constantFrom(...TOOL_NAMES),
        input: fc.oneof(arbToolInput(), arbText(), fc.constant(undefined)),
      })
      .map((part) => part as AssistantPart),
    arbCanonicalKeptPart(),
    fc
      .record({
        type: fc.constant('file' as const),
        mediaType: fc.constantFrom('image/png', 'application/pdf'),
        data: arbAnyData(),
      })
      .map((part) => part as unknown as AssistantPart),
    fc
      .record({
        type: fc.constant('reasoning-file' as const),
        mediaType: fc.constant('image/png'),
        data: fc.uint8Array({ minLength: 1, maxLength: 16 }).map((bytes) => Buffer.from(bytes)),
      })
      .map((part) => part as unknown as AssistantPart),
    fc
      .tuple(arbToolCallId(), arbAnyToolOutput())
      .map(
        ([toolCallId, output]) =>
          ({ type: 'tool-result', toolCallId, toolName: 'web_search', output }) as unknown as AssistantPart,
      ),
  );
}

function arbAnyToolPart(): fc.Arbitrary<ToolPart> {
  return fc.oneof(
    {
      weight: 4,
      arbitrary: fc
        .tuple(arbToolCallId(), fc.constantFrom(...TOOL_NAMES), arbAnyToolOutput())
        .map(([toolCallId, toolName, output]) => ({ type: 'tool-result', toolCallId, toolName, output }) as ToolPart),
    },
    {
      weight: 1,
      arbitrary: fc.tuple(arbToolCallId(), fc.option(providerOptions, { nil: undefined })).map(
        ([toolCallId, options]) =>
          ({
            type: 'tool-result',
            toolCallId,
            toolName: 'execute_bash',
            output: { type: 'text', value: 'ok' },
            ...(options ? { providerOptions: options } : {}),
          }) as ToolPart,
      ),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        type: fc.constant('tool-approval-response' as const),
        approvalId: fc.string({ minLength: 1, maxLength: 8 }),
        approved: fc.boolean(),
      }),
    },
  );
}

/** Any AI SDK message, with every part type and data form (not necessarily a valid conversation). */
export function arbAnyMessage(): fc.Arbitrary<ModelMessage> {
  return fc.oneof(
    fc.record({ role: fc.constant('system' as const), content: arbText() }),
    fc.record({ role: fc.constant('system' as const), content: arbText(), providerOptions }),
    fc.record({
      role: fc.constant('user' as const),
      content: fc.oneof(arbText(), fc.array(arbAnyUserPart(), { maxLength: 4 })),
    }),
    fc.record({
      role: fc.constant('assistant' as const),
      content: fc.oneof(arbText(), fc.array(arbAnyAssistantPart(), { maxLength: 5 })),
    }),
    fc.record({
      role: fc.constant('assistant' as const),
      content: fc.array(arbAnyAssistantPart(), { maxLength: 5 }),
      providerOptions,
    }),
    fc
      .record({ role: fc.constant('tool' as const), content: fc.array(arbAnyToolPart(), { maxLength: 4 }) })
      .map((message) => message as ToolModelMessage),
    fc
      .record({
        role: fc.constant('tool' as const),
        content: fc.array(arbAnyToolPart(), { minLength: 1, maxLength: 4 }),
        providerOptions,
      })
      .map((message) => message as ToolModelMessage),
  ) as fc.Arbitrary<ModelMessage>;
}

/** A list of any AI SDK messages. */
export function arbAnyMessages(): fc.Arbitrary<ModelMessage[]> {
  return fc.array(arbAnyMessage(), { maxLength: 12 });
}
