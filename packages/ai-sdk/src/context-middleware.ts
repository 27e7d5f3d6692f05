import { type CacheMissReport, type ChatMessage, toCacheMissReport, type TokenUsage } from '@ctxkit/core';
import type { LanguageModelMiddleware } from 'ai';

import type { LanguageModelCallOptions, LanguageModelStreamPart } from './ai-sdk-types';
import { assistantMessageOf, isFinalAnswer, StreamedAnswer } from './assistant-response';
import type { ComposedCall } from './compose-prompt';
import { tokenUsageOf } from './token-usage-of';

/** What one model call used, as the provider reported it. */
export interface CallUsage {
  usage: TokenUsage;
  model: string;
  /** The conversation of the call, for its turn number. */
  history: readonly ChatMessage[];
  cacheMiss?: CacheMissReport;
}

/** What the middleware asks of its session. */
export interface MiddlewareSession {
  /** Runs the strategy on one call. */
  composeCall(params: LanguageModelCallOptions): Promise<ComposedCall>;
  /** Reports a finished turn with the whole conversation. */
  completeTurn(history: ChatMessage[]): Promise<void>;
  /** Records what a model call used (its cache reads and writes, a cache-miss diagnosis). */
  recordUsage(call: CallUsage): void;
}

/**
 * A language-model middleware (for `wrapLanguageModel`) that runs the session's strategy on every
 * call the wrapped model receives, from `generateText`, `streamText` or an agent alike:
 * `transformParams` composes the prompt and tools; when the model answers without calling a tool
 * (the turn is over), the whole conversation with that answer is reported to `onTurnComplete`
 * (for a stream, once the stream has ended without an error). Each call's usage (from the answer, or
 * a stream's `finish` part) is recorded with the session.
 */
export function createContextMiddleware(session: MiddlewareSession): LanguageModelMiddleware {
  const histories = new WeakMap<LanguageModelCallOptions, ChatMessage[]>();
  return {
    specificationVersion: 'v4',
    async transformParams({ params }) {
      const composed = await session.composeCall(params);
      histories.set(composed.params, composed.history);
      return composed.params;
    },
    async wrapGenerate({ doGenerate, params, model }) {
      const result = await doGenerate();
      const history = histories.get(params);
      if (history) {
        const cacheMiss = toCacheMissReport(result.response?.body);
        session.recordUsage({
          usage: tokenUsageOf(result.usage),
          model: result.response?.modelId ?? model.modelId,
          history,
          ...(cacheMiss ? { cacheMiss } : {}),
        });
      }
      if (history && isFinalAnswer(result.content))
        await session.completeTurn([...history, assistantMessageOf(result.content)]);
      return result;
    },
    async wrapStream({ doStream, params, model }) {
      const result = await doStream();
      const history = histories.get(params);
      if (!history) return result;
      const answer = new StreamedAnswer();
      const stream = result.stream.pipeThrough(
        new TransformStream<LanguageModelStreamPart, LanguageModelStreamPart>({
          transform(part, controller) {
            answer.add(part);
            if (part.type === 'finish')
              session.recordUsage({ usage: tokenUsageOf(part.usage), model: model.modelId, history });
            controller.enqueue(part);
          },
          async flush() {
            if (!answer.failed && isFinalAnswer(answer.content))
              await session.completeTurn([...history, assistantMessageOf(answer.content)]);
          },
        }),
      );
      return { ...result, stream };
    },
  };
}
