import type { LLMCompletionRequest } from '@ctxkit/core';
import { compileStateSchema, type ExtractionSource, OfflineExtractor } from '@ctxkit/strategy-entity-extraction';

/** One tagged block of the extraction request's data message (`<tool_result index="7" name="…">…</tool_result>`). */
interface Block {
  attributes: Record<string, string>;
  body: string;
}

function blocks(text: string, tag: string): Block[] {
  const pattern = new RegExp(`<${tag}((?: [a-z_]+="[^"]*")*)>\\n([\\s\\S]*?)\\n</${tag}>`, 'g');
  return [...text.matchAll(pattern)].map((match) => ({
    attributes: Object.fromEntries(
      [...match[1]!.matchAll(/ ([a-z_]+)="([^"]*)"/g)].map((attribute) => [attribute[1]!, attribute[2]!]),
    ),
    // The request escapes a closing tag inside a block; read it back as written.
    body: match[2]!.split(`<\\/${tag}>`).join(`</${tag}>`),
  }));
}

const source = (block: Block, kind: ExtractionSource['kind']): ExtractionSource => ({
  index: Number(block.attributes.index ?? '0'),
  kind,
  text: block.body,
  ...(block.attributes.name ? { toolName: block.attributes.name } : {}),
});

/**
 * The answer a model asked for the booking state could give, written offline: the extraction request
 * (schema, current state, new tool results and customer messages, as the entity extraction strategy
 * sends them) is read back and given to the plugin's offline extractor, the same pattern rules the
 * strategy falls back to without a model; the fields it changes are the JSON answer. The example's
 * stand-in for the extraction model when no LLM is configured: deterministic, and a call through
 * the agent's one model client like any other.
 */
export async function standInExtractionReply(request: LLMCompletionRequest): Promise<string> {
  const data = request.messages
    .map((message) => (typeof message.content === 'string' ? message.content : ''))
    .join('\n');
  const schemaBlock = blocks(data, 'state_schema')[0];
  const stateBlock = blocks(data, 'current_state')[0];
  if (!schemaBlock || !stateBlock) return '{}';
  const schema = compileStateSchema(JSON.parse(schemaBlock.body) as Record<string, unknown>, 'booking-agent stand-in');
  const state = JSON.parse(stateBlock.body) as Record<string, unknown>;
  const userMessages = blocks(data, 'new_user_message').map((block) => source(block, 'user'));
  const toolResults = blocks(data, 'tool_result').map((block) => source(block, 'tool-output'));
  const last = blocks(data, 'last_assistant_message')[0]?.body;
  const indexes = [...userMessages, ...toolResults].map((entry) => entry.index);
  const outcome = await new OfflineExtractor(schema).extract({
    schema,
    state,
    input: {
      userMessages,
      toolResults,
      sourceMessageIndex: indexes.length > 0 ? Math.max(...indexes) : 0,
      lastAssistantText: last === undefined || last === '(none)' ? null : last,
      context: toolResults,
    },
  });
  if (!outcome.ok) return '{}';
  const changed = Object.fromEntries(
    Object.entries(outcome.state).filter(([field, value]) => JSON.stringify(value) !== JSON.stringify(state[field])),
  );
  return JSON.stringify(changed);
}
