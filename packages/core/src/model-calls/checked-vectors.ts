import type { LLMErrorDetails } from '../errors/llm-error-details';
import { LLMResponseError } from '../errors/llm-response-error';

/**
 * The vectors an embedding call answered, when there is one per text and all are the same non-zero
 * number of numbers (what `ITextEmbedder.embed` promises).
 * @throws LLMResponseError (`CTXKIT_LLM_RESPONSE_INVALID`) otherwise
 */
export function checkedVectors(vectors: unknown, count: number, details: LLMErrorDetails): number[][] {
  if (!Array.isArray(vectors) || vectors.length !== count) {
    const got = Array.isArray(vectors) ? vectors.length : typeof vectors;
    throw new LLMResponseError(`expected ${count} vectors, got ${got}`, details);
  }
  const length = (vectors[0] as unknown[] | undefined)?.length ?? 0;
  vectors.forEach((vector: unknown, position) => {
    const numbers = Array.isArray(vector) && vector.every((value) => typeof value === 'number');
    if (!numbers || vector.length !== length || length === 0) {
      throw new LLMResponseError(`vector ${position} is not ${length} numbers like the first`, details);
    }
  });
  return vectors as number[][];
}
