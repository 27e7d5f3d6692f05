import type { ChatMessage, ITokenCounter } from '@ctxkit/core';
import { escapeMemoryText, memoryBlockText, memoryPreamble, type MemoryRole } from '@ctxkit/core/strategy-kit';

import type { CompiledStateSchema } from '../schema/state-schema';
import type { EntityState } from '../state/entity-state';

/** The state block as sent, with what had to be shortened to respect the cap. */
export interface RenderedStateBlock {
  /** The message holding the block (in the strategy's `memoryRole`), or `null` when not even an empty block fits. */
  message: ChatMessage | null;
  tokens: number;
  /** Required fields still missing, in schema order. */
  missingRequired: string[];
  /** Fields shortened (oldest array items removed, long text cut) or left out to fit the cap. */
  truncatedFields: string[];
}

/** Opening tag name of the state block in the payload. */
export const STATE_BLOCK_TAG = 'conversation_state';

function orderedEntries(state: Readonly<EntityState>, schema: CompiledStateSchema): Array<[string, unknown]> {
  const known = schema.fields.map((field) => field.name).filter((name) => state[name] !== undefined);
  const extra = Object.keys(state)
    .filter((name) => !schema.fields.some((field) => field.name === name) && state[name] !== undefined)
    .sort();
  return [...known, ...extra].map((name) => [name, state[name]]);
}

/** What a user-role state block says before its frame. */
export const STATE_BLOCK_PREAMBLE = memoryPreamble(
  'The state extracted from the earlier conversation follows, as JSON.',
);

/** Tags the state's JSON may not open or close: its frame's. */
const STATE_FRAME_TAGS = [STATE_BLOCK_TAG];

/**
 * The block's text. The JSON cannot end the frame: a string value's quotes and line feeds are escaped
 * by JSON itself, and every `<` of a tag (the frame's, a role's) or of a chat-template marker is
 * written `\u003c`, so that the JSON still parses to the same state. The names of shortened fields
 * are escaped on one line.
 */
function renderText(
  entries: Array<[string, unknown]>,
  version: number,
  missing: string[],
  truncated: string[],
  role: MemoryRole,
): string {
  const body = entries.length === 0 ? '{}' : `{\n${entries.map(entryLine).join(',\n')}\n}`;
  const lines = [
    `<${STATE_BLOCK_TAG} version="${version}">`,
    escapeMemoryText(body, STATE_FRAME_TAGS, { json: true }),
    `</${STATE_BLOCK_TAG}>`,
  ];
  lines.push(
    missing.length > 0 ? `Required fields still missing: ${missing.join(', ')}.` : 'All required fields are known.',
  );
  if (truncated.length > 0)
    lines.push(
      `Shortened to ` +
        `fit: ${truncated.map((name) => escapeMemoryText(name.replace(/\s+/g, ' '), STATE_FRAME_TAGS)).join(', ')}.`,
    );
  return memoryBlockText(role, STATE_BLOCK_PREAMBLE, lines.join('\n'));
}

/**
 * Renders the state as JSON inside `<conversation_state>` (one line per field, schema order) in a
 * `role` message (after a preamble saying it is a quoted record in a user message), followed by a
 * line naming the required fields still missing. When the message
 * would exceed `maxTokens`, fields are shortened deterministically until it fits: the field with the
 * longest JSON text first (ties: the later field in schema order), removing an array's oldest item,
 * else halving a long string, else leaving the field out; required fields go last. Shortened fields
 * are named in the block and in the result. The state itself is not changed.
 */
export function renderStateBlock(
  state: Readonly<EntityState>,
  version: number,
  schema: CompiledStateSchema,
  counter: ITokenCounter,
  maxTokens: number,
  role: MemoryRole = 'user',
): RenderedStateBlock {
  const missingRequired = schema.required.filter((name) => state[name] === undefined);
  let entries = orderedEntries(state, schema).map(
    ([name, value]) => [name, structuredClone(value)] as [string, unknown],
  );
  const truncated: string[] = [];
  const measure = (text: string) => counter.countMessage({ role, content: text });
  // Field lines are counted one by one, so that each shortening step re-counts one line instead of
  // the whole block; the whole block is counted exactly only once the sum of its parts comes close
  // to the cap (joining lines can merge a few tokens at each boundary, never more than the slack).
  let lineTokens = entries.map((entry) => counter.count(entryLine(entry)));
  let sizes = entries.map(([, value]) => JSON.stringify(value).length);
  for (let guard = 0; guard < 10000; guard++) {
    const slack = 2 * (entries.length + 4);
    const estimate =
      measure(renderText([], version, missingRequired, truncated, role)) +
      lineTokens.reduce((sum, tokens) => sum + tokens, 0);
    if (estimate - slack <= maxTokens) {
      const text = renderText(entries, version, missingRequired, truncated, role);
      const tokens = measure(text);
      if (tokens <= maxTokens)
        return { message: { role, content: text }, tokens, missingRequired, truncatedFields: truncated };
    }
    if (entries.length === 0) break;
    let target = 0;
    for (let position = 1; position < entries.length; position++) {
      if (
        shrinksBefore(
          entries[position]![0],
          sizes[position]!,
          position,
          entries[target]![0],
          sizes[target]!,
          target,
          schema,
        )
      )
        target = position;
    }
    const [name, value] = entries[target]!;
    if (!truncated.includes(name)) truncated.push(name);
    let shortened: unknown;
    if (Array.isArray(value) && value.length > 1) shortened = value.slice(1);
    else if (typeof value === 'string' && value.length > 32)
      shortened = `${value.slice(0, Math.floor(value.length / 2))}...`;
    if (shortened === undefined) {
      entries = entries.filter((_, position) => position !== target);
      lineTokens = lineTokens.filter((_, position) => position !== target);
      sizes = sizes.filter((_, position) => position !== target);
    } else {
      entries[target] = [name, shortened];
      lineTokens[target] = counter.count(entryLine(entries[target]!));
      sizes[target] = JSON.stringify(shortened).length;
    }
  }
  return {
    message: null,
    tokens: 0,
    missingRequired,
    truncatedFields: orderedEntries(state, schema).map(([name]) => name),
  };
}

function entryLine([name, value]: [string, unknown]): string {
  return `${JSON.stringify(name)}: ${JSON.stringify(value)}`;
}

/**
 * Whether field `a` is shortened before field `b`: optional fields before required ones, then the
 * longer JSON text first, then the later field in schema order.
 */
function shrinksBefore(
  a: string,
  aSize: number,
  aPosition: number,
  b: string,
  bSize: number,
  bPosition: number,
  schema: CompiledStateSchema,
): boolean {
  const aRequired = schema.required.includes(a);
  const bRequired = schema.required.includes(b);
  if (aRequired !== bRequired) return !aRequired;
  if (aSize !== bSize) return aSize > bSize;
  return aPosition > bPosition;
}
