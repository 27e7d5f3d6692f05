import type { ChatMessage, TokenCounter } from '@ctxkit/core';
import type { CompiledStateSchema } from '../schema/state-schema';
import type { EntityState } from '../state/entity-state';

/** The state block as sent, with what had to be shortened to respect the cap. */
export interface RenderedStateBlock {
  /** The system message holding the block, or `null` when not even an empty block fits. */
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

function renderText(entries: Array<[string, unknown]>, version: number, missing: string[], truncated: string[]): string {
  const body = entries.length === 0 ? '{}' : `{\n${entries.map(([name, value]) => `${JSON.stringify(name)}: ${JSON.stringify(value)}`).join(',\n')}\n}`;
  const lines = [`<${STATE_BLOCK_TAG} version="${version}">`, body.split(`</${STATE_BLOCK_TAG}>`).join(`<\\/${STATE_BLOCK_TAG}>`), `</${STATE_BLOCK_TAG}>`];
  lines.push(missing.length > 0 ? `Required fields still missing: ${missing.join(', ')}.` : 'All required fields are known.');
  if (truncated.length > 0) lines.push(`Shortened to fit: ${truncated.join(', ')}.`);
  return lines.join('\n');
}

/**
 * Renders the state as JSON inside `<conversation_state>` (one line per field, schema order) in a
 * system message, followed by a line naming the required fields still missing. When the message
 * would exceed `maxTokens`, fields are shortened deterministically until it fits: the field with the
 * longest JSON text first (ties: the later field in schema order), removing an array's oldest item,
 * else halving a long string, else leaving the field out; required fields go last. Shortened fields
 * are named in the block and in the result. The state itself is not changed.
 */
export function renderStateBlock(
  state: Readonly<EntityState>,
  version: number,
  schema: CompiledStateSchema,
  counter: TokenCounter,
  maxTokens: number,
): RenderedStateBlock {
  const missingRequired = schema.required.filter((name) => state[name] === undefined);
  let entries = orderedEntries(state, schema).map(([name, value]) => [name, structuredClone(value)] as [string, unknown]);
  const truncated: string[] = [];
  const measure = (text: string) => counter.countMessage({ role: 'system', content: text });
  for (let guard = 0; guard < 10000; guard++) {
    const text = renderText(entries, version, missingRequired, truncated);
    const tokens = measure(text);
    if (tokens <= maxTokens) return { message: { role: 'system', content: text }, tokens, missingRequired, truncatedFields: truncated };
    if (entries.length === 0) break;
    const ranked = entries
      .map(([name, value], position) => ({ name, value, position, size: JSON.stringify(value).length, required: schema.required.includes(name) }))
      .sort((a, b) => Number(a.required) - Number(b.required) || b.size - a.size || b.position - a.position);
    const target = ranked[0]!;
    if (!truncated.includes(target.name)) truncated.push(target.name);
    if (Array.isArray(target.value) && target.value.length > 1) {
      entries[target.position] = [target.name, target.value.slice(1)];
    } else if (typeof target.value === 'string' && target.value.length > 32) {
      entries[target.position] = [target.name, `${target.value.slice(0, Math.floor(target.value.length / 2))}...`];
    } else {
      entries = entries.filter((_, position) => position !== target.position);
    }
  }
  return { message: null, tokens: 0, missingRequired, truncatedFields: orderedEntries(state, schema).map(([name]) => name) };
}
