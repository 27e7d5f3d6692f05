import { type AssistantMessage, type ChatMessage, type LLMCompletionRequest } from '@ctxkit/core';
import { contentText } from '@ctxkit/core/strategy-kit';
import { ScriptedLLMClient } from '@ctxkit/core/testing';

/** The placeholder the tool output cache leaves for a trimmed output. */
const TRIMMED_PLACEHOLDER = /\[tool output trimmed; ref=(to_[0-9a-f]{32})\]/;

/** One recorded run: a user message and the agent's model answers until the next user message. */
export interface RecordedSegment {
  userText: string;
  replies: AssistantMessage[];
}

/** Splits a recorded trajectory at its user messages (the task, and errors the loop fed back). */
export function recordedSegments(history: readonly ChatMessage[]): RecordedSegment[] {
  const segments: RecordedSegment[] = [];
  for (const message of history) {
    if (message.role === 'user') segments.push({ userText: contentText(message.content), replies: [] });
    else if (message.role === 'assistant') segments[segments.length - 1]?.replies.push(structuredClone(message));
  }
  return segments;
}

/** One expansion the scripted model asked for, page by page. */
export interface Expansion {
  refId: string;
  /** The agent model call (1-based) that asked for the first page. */
  step: number;
  /** The tool results received, one per page, in order. */
  pages: string[];
  /** True once the last page arrived. */
  complete: boolean;
}

/** Lines the scripted model asks for per `tool_output_cache` call. */
export const EXPAND_PAGE_LINES = 400;

const MORE_MARKER = /\[more: continue with offset=(\d+)\]\s*$/;

/**
 * The scripted coding model. For the agent it replays the recorded answers of the current segment,
 * except that the first time it sees a `[tool output trimmed; ref=…]` placeholder it reads that
 * output back with `tool_output_cache`, page by page (`offset` / `limit`), as a model that needs an
 * old output again would. For a compaction request (sent without tools) it writes `<retain>` and
 * `<summary>` naming the task and the refs it was shown, so that the cached outputs they name survive.
 */
export class CodingReplayModel {
  private pending: AssistantMessage[] = [];
  private paging: { expansion: Expansion; toolCallId: string } | undefined;
  /** Expansions asked for, in order. */
  readonly expansions: Expansion[] = [];
  /** Compaction requests answered. */
  compactionRequests = 0;
  /** Agent model calls answered. */
  agentCalls = 0;
  readonly client: ScriptedLLMClient;

  constructor(name: string) {
    this.client = new ScriptedLLMClient([(request: LLMCompletionRequest) => this.answer(request)], {
      repeatLast: true,
      name,
    });
  }

  /** Loads the recorded answers of the next segment. */
  startSegment(segment: RecordedSegment): void {
    this.pending = segment.replies.map((reply) => structuredClone(reply));
  }

  private answer(request: LLMCompletionRequest): Partial<AssistantMessage> | string {
    if (!request.tools || request.tools.length === 0) return this.compactionAnswer(request);
    this.agentCalls++;
    if (this.paging) {
      const { expansion, toolCallId } = this.paging;
      const page = request.messages.find((message) => message.role === 'tool' && message.tool_call_id === toolCallId);
      this.paging = undefined;
      if (page) {
        const text = contentText(page.content);
        expansion.pages.push(text);
        const more = MORE_MARKER.exec(text);
        if (more) return this.expand(expansion, Number(more[1]));
        expansion.complete = true;
      }
    } else if (this.expansions.length === 0) {
      // The most recently trimmed output is the one the model is most likely to need again.
      let wanted: { refId: string } | undefined;
      for (const message of request.messages) {
        if (message.role !== 'tool') continue;
        const match = TRIMMED_PLACEHOLDER.exec(contentText(message.content));
        if (match) wanted = { refId: match[1]! };
      }
      if (wanted) {
        const expansion: Expansion = { refId: wanted.refId, step: this.agentCalls, pages: [], complete: false };
        this.expansions.push(expansion);
        return this.expand(expansion, 1);
      }
    }
    const next = this.pending.shift();
    if (!next) return 'Done.';
    return next.tool_calls
      ? { content: next.content ?? null, tool_calls: next.tool_calls }
      : { content: next.content ?? '' };
  }

  private expand(expansion: Expansion, offset: number): Partial<AssistantMessage> {
    const toolCallId = `expand_${expansion.step}_${offset}`;
    this.paging = { expansion, toolCallId };
    return {
      content: offset === 1 ? 'I need that earlier output again.' : null,
      tool_calls: [
        {
          id: toolCallId,
          type: 'function',
          function: {
            name: 'tool_output_cache',
            arguments: JSON.stringify({ ref_id: expansion.refId, offset, limit: EXPAND_PAGE_LINES }),
          },
        },
      ],
    };
  }

  private compactionAnswer(request: LLMCompletionRequest): string {
    this.compactionRequests++;
    const refs = [...new Set(JSON.stringify(request.messages).match(/to_[0-9a-f]{32}/g) ?? [])].slice(-3);
    const task = contentText(request.messages.find((message) => message.role === 'user')?.content ?? '').slice(0, 200);
    return [
      `<retain>Task: ${task.replace(/\s+/g, ' ')}\nCached outputs still needed: ${refs.join(', ') || 'none'}</retain>`,
      '<summary>The agent explored the repository, read the relevant sources, ran commands and edited files towards ' +
        'the fix; continue from the latest turn.</summary>',
    ].join('\n');
  }
}
