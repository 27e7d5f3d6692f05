import type { ChatMessage, ITokenCounter } from '@ctxkit/core';

/** BM25's usual parameters. */
const K1 = 1.2;
const B = 0.75;
/** The share of the ceiling the reference fills (the standard strategies' safety margin leaves the rest). */
const FILLED_SHARE = 0.9;

const WORD = /[\p{L}\p{N}]+/gu;

/** Lowercase words, no stemming, no stop words: plain. */
function words(message: Readonly<ChatMessage>): string[] {
  const text =
    typeof message.content === 'string'
      ? message.content
      : (message.content ?? []).map((part) => (part.type === 'text' ? part.text : '')).join('\n');
  return text.toLowerCase().match(WORD) ?? [];
}

/** Okapi BM25 of each document against the query's distinct words. */
export function bm25Scores(documents: ReadonlyArray<ReadonlyArray<string>>, query: ReadonlyArray<string>): number[] {
  const frequency = new Map<string, number>();
  let length = 0;
  for (const document of documents) {
    length += document.length;
    for (const word of new Set(document)) frequency.set(word, (frequency.get(word) ?? 0) + 1);
  }
  const count = documents.length;
  const average = length / Math.max(1, count);
  const terms = [...new Set(query)];
  return documents.map((document) => {
    const tf = new Map<string, number>();
    for (const word of document) tf.set(word, (tf.get(word) ?? 0) + 1);
    let score = 0;
    for (const term of terms) {
      const f = tf.get(term);
      if (!f) continue;
      const n = frequency.get(term)!;
      const idf = Math.log(1 + (count - n + 0.5) / (n + 0.5));
      score += (idf * f * (K1 + 1)) / (f + K1 * (1 - B + (B * document.length) / average));
    }
    return score;
  });
}

/**
 * The reference a recall strategy is measured against: plain BM25 over the older messages, as a
 * weekend's worth of retrieval code would do it. Within 90% of the ceiling, counted by `counter`:
 * half of the room (after the system prompt and the question) goes to the newest messages, the other
 * half to the best-scoring older messages, whole messages only, kept in chronological order.
 */
export function plainBm25Payload(
  systemPrompt: string,
  history: ReadonlyArray<ChatMessage>,
  question: ChatMessage,
  ceiling: number,
  counter: ITokenCounter,
): ChatMessage[] {
  const system: ChatMessage = { role: 'system', content: systemPrompt };
  const room = Math.floor(ceiling * FILLED_SHARE) - counter.countMessage(system) - counter.countMessage(question);
  const half = Math.floor(room / 2);
  let used = 0;
  let start = history.length;
  while (start > 0 && used + counter.countMessage(history[start - 1]!) <= half)
    used += counter.countMessage(history[--start]!);
  const older = history.slice(0, start);
  const scores = bm25Scores(older.map(words), words(question));
  const order = older.map((_, index) => index).filter((index) => scores[index]! > 0);
  order.sort((a, b) => scores[b]! - scores[a]! || a - b);
  let left = room - used;
  const chosen: number[] = [];
  for (const index of order) {
    const tokens = counter.countMessage(older[index]!);
    if (tokens > left) continue;
    chosen.push(index);
    left -= tokens;
  }
  chosen.sort((a, b) => a - b);
  return [system, ...chosen.map((index) => older[index]!), ...history.slice(start), question];
}
