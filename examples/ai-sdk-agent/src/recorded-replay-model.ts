import { type AssistantMessage } from '@ctxkit/core';
import { contentText } from '@ctxkit/core/strategy-kit';
import { MockLanguageModelV4 } from 'ai/test';

/** What the model receives on one call (the provider-level request). */
export type ModelRequest = Parameters<MockLanguageModelV4['doGenerate']>[0];

/** What the model answers on one call. */
export type ModelAnswer = Awaited<ReturnType<MockLanguageModelV4['doGenerate']>>;

/** The placeholder the tool output cache leaves for a trimmed output. */
export const TRIMMED_PLACEHOLDER = /\[tool output trimmed; ref=(to_[0-9a-f]{32})\]/g;

/** Lines the model asks for per `tool_output_cache` call. */
export const EXPAND_PAGE_LINES = 400;

const MORE_MARKER = /\[more: continue with offset=(\d+)\]\s*$/;
const USAGE = {
  inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: undefined, text: undefined, reasoning: undefined },
};

/** One output the model read back from the cache. */
export interface Expansion {
  refId: string;
  /** The model call (1-based) that asked for the first page. */
  request: number;
  /** The ids of the `tool_output_cache` calls, one per page. */
  callIds: string[];
}

/** Text of a tool result part's output as the model reads it. */
function outputText(output: unknown): string {
  const typed = output as { type?: string; value?: unknown };
  return typeof typed.value === 'string' ? typed.value : JSON.stringify(typed.value ?? '');
}

/**
 * A mock AI SDK model (`MockLanguageModelV4` from `ai/test`) that answers as a recorded agent did:
 * `startTurn(replies)` loads the recorded assistant messages of a turn and each call returns the
 * next one (its text and tool calls, with the recorded ids and arguments). With
 * `expandTrimmedOutputs`, the first time a request shows a `[tool output trimmed; ref=…]`
 * placeholder and offers `tool_output_cache`, it reads that output back, page by page, as a model
 * that needs an old output again would, before going on with the recording (`maxExpansions`
 * outputs, one by default).
 */
export class RecordedReplayModel {
  readonly model: MockLanguageModelV4;
  /** Outputs read back from the cache, in order. */
  readonly expansions: Expansion[] = [];
  /** The newest user message's text at each request, in order. */
  readonly newestUser: string[] = [];
  private pending: AssistantMessage[] = [];
  private userText = '';
  private readonly expanded = new Set<string>();
  private paging: { expansion: Expansion; callId: string } | undefined;

  constructor(private readonly options: { expandTrimmedOutputs?: boolean; maxExpansions?: number } = {}) {
    this.model = new MockLanguageModelV4({
      provider: 'recorded',
      modelId: 'recorded-agent',
      doGenerate: async (request) => this.answer(request),
    });
  }

  /** Every request the model received, in order. */
  get requests(): ModelRequest[] {
    return this.model.doGenerateCalls;
  }

  /** Loads a turn: the user's text and the recorded answers that follow it. */
  startTurn(userText: string, replies: readonly AssistantMessage[]): void {
    this.userText = userText;
    this.pending = replies.map((reply) => structuredClone(reply));
  }

  private answer(request: ModelRequest): ModelAnswer {
    this.newestUser.push(this.userText);
    const page = this.options.expandTrimmedOutputs ? this.nextPage(request) : undefined;
    if (page) return page;
    const next = this.pending.shift();
    if (!next)
      return {
        content: [{ type: 'text', text: 'Is there anything else I can help you with?' }],
        finishReason: { unified: 'stop', raw: 'stop' },
        usage: USAGE,
        warnings: [],
      };
    const content: ModelAnswer['content'] = [];
    const text = contentText(next.content ?? null);
    if (text) content.push({ type: 'text', text });
    for (const call of next.tool_calls ?? [])
      content.push({
        type: 'tool-call',
        toolCallId: call.id,
        toolName: call.function.name,
        input: call.function.arguments,
      });
    const calls = (next.tool_calls ?? []).length > 0;
    return {
      content,
      finishReason: calls ? { unified: 'tool-calls', raw: 'tool_calls' } : { unified: 'stop', raw: 'stop' },
      usage: USAGE,
      warnings: [],
    };
  }

  /**
   * The next `tool_output_cache` call: the next page of an output being read, or the first page of a newly trimmed one.
   */
  private nextPage(request: ModelRequest): ModelAnswer | undefined {
    const offersCache = (request.tools ?? []).some((tool) => tool.name === 'tool_output_cache');
    const results = request.prompt
      .flatMap((message) => (message.role === 'tool' ? message.content : []))
      .filter((part) => part.type === 'tool-result');
    if (this.paging) {
      const { expansion, callId } = this.paging;
      const last = results.find((part) => part.toolCallId === callId);
      const more = last ? MORE_MARKER.exec(outputText(last.output)) : null;
      this.paging = undefined;
      if (more && offersCache) return this.readPage(expansion, Number(more[1]));
      return undefined;
    }
    if (!offersCache || this.expansions.length >= (this.options.maxExpansions ?? 1)) return undefined;
    for (const part of results) {
      for (const match of outputText(part.output).matchAll(TRIMMED_PLACEHOLDER)) {
        const refId = match[1]!;
        if (this.expanded.has(refId)) continue;
        this.expanded.add(refId);
        const expansion: Expansion = { refId, request: this.model.doGenerateCalls.length, callIds: [] };
        this.expansions.push(expansion);
        return this.readPage(expansion, 1);
      }
    }
    return undefined;
  }

  private readPage(expansion: Expansion, offset: number): ModelAnswer {
    const callId = `expand-${this.expansions.length}-${expansion.callIds.length + 1}`;
    expansion.callIds.push(callId);
    this.paging = { expansion, callId };
    const input = JSON.stringify({ ref_id: expansion.refId, offset, limit: EXPAND_PAGE_LINES });
    return {
      content: [{ type: 'tool-call', toolCallId: callId, toolName: 'tool_output_cache', input }],
      finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
      usage: USAGE,
      warnings: [],
    };
  }
}
