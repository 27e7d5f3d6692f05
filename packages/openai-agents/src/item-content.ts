import type { ContentPart, TextContentPart } from '@ctxkit/core';

type Part = Record<string, unknown>;

const DETAILS = new Set(['auto', 'low', 'high']);

function fileLabel(file: unknown, filename: unknown): string {
  if (typeof filename === 'string' && filename !== '') return filename;
  if (typeof file === 'string') return file.length > 80 ? 'inline data' : file;
  if (file !== null && typeof file === 'object') {
    const record = file as Record<string, unknown>;
    for (const key of ['filename', 'url', 'id', 'fileId'])
      if (typeof record[key] === 'string') return record[key] as string;
  }
  return 'file';
}

/**
 * The text that stands in the ctxkit message for a part ctxkit has no slot for (a file, audio, an
 * image given by id): what a strategy counts and may keep. The part itself stays in the origin.
 */
export function partMarker(part: Part): string {
  switch (part.type) {
    case 'input_file':
    case 'file':
      return `[file: ${fileLabel(part.file, part.filename)}]`;
    case 'audio':
      return typeof part.transcript === 'string' && part.transcript !== '' ? `[audio: ${part.transcript}]` : '[audio]';
    case 'input_image':
    case 'image':
      return '[image]';
    default:
      return `[${String(part.type)}]`;
  }
}

/** A user message's content as ctxkit content: text and image URLs in their slots, other parts as markers. */
export function userContent(content: unknown): string | ContentPart[] {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part: Part): ContentPart => {
    if (part.type === 'input_text' && typeof part.text === 'string') return { type: 'text', text: part.text };
    if (part.type === 'input_image' && typeof part.image === 'string') {
      const image: ContentPart = { type: 'image_url', image_url: { url: part.image } };
      if (typeof part.detail === 'string' && DETAILS.has(part.detail))
        image.image_url.detail = part.detail as 'auto' | 'low' | 'high';
      return image;
    }
    return { type: 'text', text: partMarker(part) };
  });
}

/** An assistant message's content parts as one text: output text, refusals, audio transcripts, markers. */
export function assistantText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part: Part) => {
      if (part.type === 'output_text' && typeof part.text === 'string') return part.text;
      if (part.type === 'refusal' && typeof part.refusal === 'string') return part.refusal;
      return partMarker(part);
    })
    .join('');
}

/** A function result's output as ctxkit tool content: a string, or text parts for a list. */
export function toolOutputContent(output: unknown): string | TextContentPart[] {
  if (typeof output === 'string') return output;
  if (Array.isArray(output)) {
    return output.map((part: Part): TextContentPart => ({
      type: 'text',
      text: part.type === 'input_text' && typeof part.text === 'string' ? part.text : partMarker(part),
    }));
  }
  if (output !== null && typeof output === 'object') {
    const part = output as Part;
    return part.type === 'text' && typeof part.text === 'string' ? part.text : partMarker(part);
  }
  return '';
}
