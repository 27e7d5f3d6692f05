import { transcriptSummaryReply } from '@ctxkit/example-recorded-replay';
import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';
import { FakeListChatModel } from '@langchain/core/utils/testing';

/**
 * LangChain's `FakeListChatModel` standing in for the chat model an application configured for
 * summaries: it answers each summary request with a `<summary>` block naming the messages it covers
 * and the reservation codes and flight numbers of its transcript and of the previous summary
 * (`transcriptSummaryReply`), and keeps what it was asked. Offline and deterministic.
 */
export class SummaryChatModel extends FakeListChatModel {
  /** The messages of every summary request, in order. */
  readonly requests: BaseMessage[][] = [];
  /** Every summary written (the text inside the `<summary>` block). */
  readonly summaries: string[] = [];

  constructor() {
    super({ responses: [] });
  }

  override async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    this.requests.push(messages);
    const reply = transcriptSummaryReply(messages.map((message) => message.text).join('\n'));
    this.summaries.push(reply.replace(/^<summary>\n|\n<\/summary>$/g, ''));
    const message = new AIMessage({
      content: reply,
      response_metadata: { model_name: 'summary-writer', finish_reason: 'stop' },
    });
    return { generations: [{ text: reply, message }] };
  }
}
