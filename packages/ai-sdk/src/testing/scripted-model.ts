import type { MockLanguageModelV4 } from 'ai/test';

import type { LanguageModelCallOptions, LanguageModelGenerateResult, LanguageModelStreamPart } from '../ai-sdk-types';

/** One scripted answer: text, or tool calls (with their inputs). */
export type ScriptedAnswer = { text: string } | { calls: Array<{ id: string; name: string; input: unknown }> };

const USAGE = {
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 5, text: 5, reasoning: 0 },
};

/** The generate result of a scripted answer. */
export function generated(answer: ScriptedAnswer): LanguageModelGenerateResult {
  if ('text' in answer)
    return {
      content: [{ type: 'text', text: answer.text }],
      finishReason: { unified: 'stop', raw: 'stop' },
      usage: USAGE,
      warnings: [],
    };
  return {
    content: answer.calls.map((call) => ({
      type: 'tool-call' as const,
      toolCallId: call.id,
      toolName: call.name,
      input: JSON.stringify(call.input),
    })),
    finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
    usage: USAGE,
    warnings: [],
  };
}

/** The stream parts of a scripted answer (an `error` part at the end when `fail`). */
export function streamed(answer: ScriptedAnswer, fail = false): LanguageModelStreamPart[] {
  const parts: LanguageModelStreamPart[] = [{ type: 'stream-start', warnings: [] }];
  if ('text' in answer) {
    parts.push({ type: 'text-start', id: 't' });
    for (const piece of answer.text.match(/.{1,4}/gs) ?? []) parts.push({ type: 'text-delta', id: 't', delta: piece });
    parts.push({ type: 'text-end', id: 't' });
  } else {
    for (const call of answer.calls)
      parts.push({ type: 'tool-call', toolCallId: call.id, toolName: call.name, input: JSON.stringify(call.input) });
  }
  if (fail) parts.push({ type: 'error', error: new Error('the connection dropped') });
  parts.push({
    type: 'finish',
    finishReason: 'text' in answer ? { unified: 'stop', raw: 'stop' } : { unified: 'tool-calls', raw: 'tool_calls' },
    usage: USAGE,
  });
  return parts;
}

/** A ReadableStream of parts. */
export function streamOf(parts: LanguageModelStreamPart[]): ReadableStream<LanguageModelStreamPart> {
  return new ReadableStream({
    start(controller) {
      for (const part of parts) controller.enqueue(part);
      controller.close();
    },
  });
}

/** The requests a mock model received (generate and stream calls, in order). */
export function requestsOf(model: MockLanguageModelV4): LanguageModelCallOptions[] {
  return [...model.doGenerateCalls, ...model.doStreamCalls];
}
