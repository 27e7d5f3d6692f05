/**
 * Whether a payload's recall used the question's vector: `used`; `none` (no embedder, or
 * `embeddings: "off"`); `failed` (it threw or timed out: this payload ranked by words and the next
 * calls skip it until its backoff ends); `backing-off` (skipped: a recent failure).
 */
export type RecallEmbeddingState = 'used' | 'none' | 'failed' | 'backing-off';
