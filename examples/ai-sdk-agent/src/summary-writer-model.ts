import { transcriptSummaryReply } from '@ctxkit/example-recorded-replay';
import { MockLanguageModelV4 } from 'ai/test';

/** What the summary model receives on one call. */
export type SummaryRequest = Parameters<MockLanguageModelV4['doGenerate']>[0];

function textOf(request: SummaryRequest): string {
  return request.prompt
    .flatMap((message) =>
      typeof message.content === 'string'
        ? [message.content]
        : message.content.map((part) => ('text' in part && typeof part.text === 'string' ? part.text : '')),
    )
    .join('\n');
}

/**
 * A mock AI SDK model (`MockLanguageModelV4` from `ai/test`) standing in for the model an
 * application configured for summaries: it answers a summary request with a `<summary>` block that
 * names the messages it covers and the reservation codes and flight numbers of its transcript and of
 * the previous summary, as a model asked to keep ids would (`transcriptSummaryReply`). Offline,
 * deterministic, written from the request it gets.
 */
export class SummaryWriterModel {
  readonly model: MockLanguageModelV4;
  /** Every summary written, in order (the text inside the `<summary>` block). */
  readonly summaries: string[] = [];

  constructor() {
    this.model = new MockLanguageModelV4({
      provider: 'mock-summaries',
      modelId: 'summary-writer',
      doGenerate: async (request) => this.answer(request),
    });
  }

  /** Every request the model received. */
  get requests(): SummaryRequest[] {
    return this.model.doGenerateCalls;
  }

  private async answer(request: SummaryRequest) {
    const text = transcriptSummaryReply(textOf(request));
    this.summaries.push(text.replace(/^<summary>\n|\n<\/summary>$/g, ''));
    return {
      content: [{ type: 'text' as const, text }],
      finishReason: { unified: 'stop' as const, raw: 'stop' },
      usage: {
        inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 },
        outputTokens: { total: 0, text: 0, reasoning: 0 },
      },
      warnings: [],
    };
  }
}
