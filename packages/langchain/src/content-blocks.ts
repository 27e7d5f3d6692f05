import type { ContentPart, ImageContentPart, ReasoningItem, TextContentPart } from '@ctxkit/core';

/** One LangChain content block, read as data (`{ type, ... }`). */
export type LangChainBlock = Record<string, unknown>;

/**
 * LangChain block types that hold opaque provider content ctxkit carries on the assistant message:
 * reasoning (standard `reasoning`, Anthropic `thinking` and `redacted_thinking`) and compaction
 * (Anthropic's compaction block, an OpenAI Responses compaction item).
 */
const REASONING_TYPES = new Set(['reasoning', 'thinking', 'redacted_thinking', 'compaction']);

const DETAILS = new Set(['auto', 'low', 'high']);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The blocks of a LangChain content (a string is one text block; anything else is no block). */
function blocksOf(content: unknown): LangChainBlock[] {
  return Array.isArray(content) ? content.filter(isRecord) : [];
}

/** The text of a text block, else `undefined`. */
function blockText(block: LangChainBlock): string | undefined {
  return block.type === 'text' && typeof block.text === 'string' ? block.text : undefined;
}

/**
 * The ctxkit image part for a LangChain image block: OpenAI style (`image_url`, a string or
 * `{ url, detail }`) or standard (`image` with `url`, or base64 `data` and its MIME type), else
 * `undefined` (an image by provider file id has no ctxkit slot).
 */
export function imagePartOf(block: LangChainBlock): ImageContentPart | undefined {
  if (block.type === 'image_url') {
    const value = block.image_url;
    if (typeof value === 'string') return { type: 'image_url', image_url: { url: value } };
    if (isRecord(value) && typeof value.url === 'string') {
      const detail = value.detail;
      return {
        type: 'image_url',
        image_url: {
          url: value.url,
          ...(typeof detail === 'string' && DETAILS.has(detail) ? { detail: detail as 'auto' | 'low' | 'high' } : {}),
        },
      };
    }
    return undefined;
  }
  if (block.type !== 'image') return undefined;
  if (typeof block.url === 'string') return { type: 'image_url', image_url: { url: block.url } };
  const mime =
    typeof block.mimeType === 'string'
      ? block.mimeType
      : typeof block.mime_type === 'string'
        ? block.mime_type
        : undefined;
  if (mime === undefined) return undefined;
  const data =
    typeof block.data === 'string'
      ? block.data
      : block.data instanceof Uint8Array
        ? Buffer.from(block.data).toString('base64')
        : undefined;
  return data === undefined ? undefined : { type: 'image_url', image_url: { url: `data:${mime};base64,${data}` } };
}

/** Text parts of a LangChain content (system and tool messages): a string stays a string. */
export function textContentOf(content: unknown): string | TextContentPart[] {
  if (typeof content === 'string') return content;
  const parts: TextContentPart[] = [];
  for (const block of blocksOf(content)) {
    const text = blockText(block);
    if (text !== undefined) parts.push({ type: 'text', text });
  }
  return parts;
}

/** Text and image parts of a LangChain content (human messages): a string stays a string. */
export function userContentOf(content: unknown): string | ContentPart[] {
  if (typeof content === 'string') return content;
  const parts: ContentPart[] = [];
  for (const block of blocksOf(content)) {
    const text = blockText(block);
    if (text !== undefined) parts.push({ type: 'text', text });
    else {
      const image = imagePartOf(block);
      if (image) parts.push(image);
    }
  }
  return parts;
}

/** The text of an AI message's content: a string as is, else its text blocks joined (as LangChain's `.text`). */
export function joinedTextOf(content: unknown): string {
  if (typeof content === 'string') return content;
  let text = '';
  for (const block of blocksOf(content)) text += blockText(block) ?? '';
  return text;
}

/**
 * The reasoning items of an AI message's content (`reasoning`, `thinking`, `redacted_thinking` blocks, as received).
 */
export function reasoningOf(content: unknown, modelProvider: unknown): ReasoningItem[] {
  const items: ReasoningItem[] = [];
  for (const block of blocksOf(content)) {
    if (typeof block.type !== 'string' || !REASONING_TYPES.has(block.type)) continue;
    items.push({ provider: reasoningProvider(block, modelProvider), data: block });
  }
  return items;
}

/**
 * Who produced a reasoning block: Anthropic for thinking blocks, else the message's model provider;
 * without one, a compaction block with a summary (`content`) or a signature is Anthropic's and any
 * other is OpenAI's; a reasoning block with encrypted content or a summary is OpenAI's, else `langchain`.
 */
function reasoningProvider(block: LangChainBlock, modelProvider: unknown): string {
  if (block.type === 'thinking' || block.type === 'redacted_thinking') return 'anthropic';
  if (typeof modelProvider === 'string' && modelProvider !== '') return modelProvider;
  if (block.type === 'compaction') return 'content' in block || 'signature' in block ? 'anthropic' : 'openai';
  return 'encrypted_content' in block || Array.isArray(block.summary) ? 'openai' : 'langchain';
}

/** The LangChain content of a ctxkit content: a string as is, parts as text and `image_url` blocks, `null` as `''`. */
export function toLangChainContent(content: string | ReadonlyArray<ContentPart> | null): string | LangChainBlock[] {
  if (content === null) return '';
  if (typeof content === 'string') return content;
  return content.map((part) =>
    part.type === 'text' ? { type: 'text', text: part.text } : { type: 'image_url', image_url: { ...part.image_url } },
  );
}

/** The content blocks of ctxkit reasoning items whose data is a typed block (others have no LangChain place). */
export function reasoningBlocksOf(reasoning: ReadonlyArray<ReasoningItem> | undefined): LangChainBlock[] {
  return (reasoning ?? []).filter((item) => typeof item.data.type === 'string').map((item) => ({ ...item.data }));
}
