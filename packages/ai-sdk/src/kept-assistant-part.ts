import type { ReasoningItem } from '@ctxkit/core';

import type { AssistantPart } from './ai-sdk-types';
import { jsonSafeData, restoredData } from './file-data';

/**
 * The `provider` of the reasoning items that carry AI SDK assistant parts ctxkit has no field for:
 * reasoning, reasoning files, generated files, custom parts, provider-executed tool calls and
 * their results, tool approval requests. They ride on the assistant message they came with
 * (strategies keep `reasoning` with its message and its tool calls), JSON-safe, with their position.
 */
export const AI_SDK_REASONING_PROVIDER = 'ai-sdk';

/** What a kept part's reasoning item holds. */
interface KeptPartData {
  /** The part's position in the message's content. */
  index: number;
  /** The part, with bytes as base64 and URLs as strings. */
  part: Record<string, unknown>;
}

function mapOutputFiles(output: unknown, map: (data: unknown) => unknown): unknown {
  if (typeof output !== 'object' || output === null) return output;
  const typed = output as { type?: unknown; value?: unknown };
  if (typed.type !== 'content' || !Array.isArray(typed.value)) return output;
  return {
    ...typed,
    value: typed.value.map((item: unknown) => {
      if (typeof item !== 'object' || item === null) return item;
      const entry = item as { type?: unknown; data?: unknown };
      return entry.type === 'file' ? { ...entry, data: map(entry.data) } : item;
    }),
  };
}

function mapFiles(part: Record<string, unknown>, map: (data: unknown) => unknown): Record<string, unknown> {
  if (part.type === 'file' || part.type === 'reasoning-file') return { ...part, data: map(part.data) };
  if (part.type === 'tool-result') return { ...part, output: mapOutputFiles(part.output, map) };
  return part;
}

/** The reasoning item that carries an assistant part at `index` of its message's content. */
export function keptPartItem(part: AssistantPart, index: number): ReasoningItem {
  const data: KeptPartData = { index, part: mapFiles(part as unknown as Record<string, unknown>, jsonSafeData) };
  return { provider: AI_SDK_REASONING_PROVIDER, data: data as unknown as Record<string, unknown> };
}

/** The part a reasoning item carries and its position, or `undefined` for an item of another provider. */
export function keptPartOf(item: Readonly<ReasoningItem>): { index: number; part: AssistantPart } | undefined {
  if (item.provider !== AI_SDK_REASONING_PROVIDER) return undefined;
  const { index, part } = item.data as Partial<KeptPartData>;
  if (typeof index !== 'number' || typeof part !== 'object' || part === null || typeof part.type !== 'string')
    return undefined;
  return { index, part: mapFiles(part, restoredData) as unknown as AssistantPart };
}

/**
 * What a part-options item holds: the provider options of a text or tool-call part ctxkit writes from its own fields.
 */
interface KeptOptionsData {
  /** The tool call the options belong to; absent for the message's text. */
  toolCallId?: string;
  providerOptions: Record<string, unknown>;
}

/**
 * The reasoning item that carries the provider options of a text or tool-call part (such as Gemini's
 * `thoughtSignature`, which must go back on the part it came with). ctxkit keeps text and tool calls
 * in its own fields; when a strategy changes the message and it is written from those fields, these
 * options go back on the text and on the tool call with the same id.
 */
export function keptOptionsItem(providerOptions: Record<string, unknown>, toolCallId?: string): ReasoningItem {
  const data: KeptOptionsData = toolCallId === undefined ? { providerOptions } : { toolCallId, providerOptions };
  return { provider: AI_SDK_REASONING_PROVIDER, data: data as unknown as Record<string, unknown> };
}

/**
 * The provider options a part-options item carries, and the tool call they belong to; `undefined` for any other item.
 */
export function keptOptionsOf(item: Readonly<ReasoningItem>): KeptOptionsData | undefined {
  if (item.provider !== AI_SDK_REASONING_PROVIDER) return undefined;
  const { toolCallId, providerOptions } = item.data as Partial<KeptOptionsData> & { part?: unknown };
  if (
    typeof providerOptions !== 'object' ||
    providerOptions === null ||
    (item.data as { part?: unknown }).part !== undefined
  )
    return undefined;
  return toolCallId === undefined ? { providerOptions } : { toolCallId, providerOptions };
}
