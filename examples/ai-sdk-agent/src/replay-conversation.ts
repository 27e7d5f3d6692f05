import type { CtxkitLanguageModelMiddleware } from '@ctxkit/ai-sdk';
import type { PayloadStats } from '@ctxkit/core';
import type { ConversationRecord } from '@ctxkit/core/testing';
import { recordedTurns } from '@ctxkit/example-recorded-replay';
import { generateText, type ModelMessage, stepCountIs, type ToolSet, wrapLanguageModel } from 'ai';

import { type Expansion, type ModelRequest, RecordedReplayModel } from './recorded-replay-model';

/** Options of {@link replayConversation}. */
export interface ReplayOptions {
  record: ConversationRecord;
  /** The tools of the conversation, answering with the recorded outputs. */
  tools: ToolSet;
  /** The ctxkit middleware the model is wrapped with. */
  middleware: CtxkitLanguageModelMiddleware;
  /** Let the model read trimmed outputs back with `tool_output_cache`. @default false */
  expandTrimmedOutputs?: boolean;
}

/** What a replay sent and got. */
export interface ReplayReport {
  /** Every request the model received, in order. */
  requests: ModelRequest[];
  /** The newest user message's text at each request. */
  newestUser: string[];
  /** The stats of each payload the strategy composed, in order. */
  stats: PayloadStats[];
  /** The conversation as the application kept it (every message, nothing composed). */
  messages: ModelMessage[];
  /** Outputs the model read back from the cache, with the text each page returned. */
  expansions: Array<Expansion & { pages: string[] }>;
  turns: number;
}

/**
 * Replays a recorded conversation through `generateText`: each recorded user message is appended to
 * the conversation, and a mock model answers with the recorded assistant turns while the tools
 * answer with the recorded outputs. The strategy composes every request through the middleware; the
 * application keeps the whole conversation (`result.responseMessages`).
 */
export async function replayConversation(options: ReplayOptions): Promise<ReplayReport> {
  const { record, middleware } = options;
  const replay = new RecordedReplayModel({ expandTrimmedOutputs: options.expandTrimmedOutputs ?? false });
  const model = wrapLanguageModel({ model: replay.model, middleware });
  const tools = await middleware.tools(options.tools);
  const agent = await middleware.getAgent();
  const stats: PayloadStats[] = [];
  const onPayload = (event: { sessionId: string; stats: PayloadStats }) => {
    if (event.sessionId === middleware.sessionId) stats.push(event.stats);
  };
  agent.events.on('payload-composed', onPayload);
  const messages: ModelMessage[] = [];
  const pages = new Map<string, string>();
  const turns = recordedTurns(record.history);
  try {
    for (const turn of turns) {
      messages.push({ role: 'user', content: turn.userText });
      replay.startTurn(turn.userText, turn.replies);
      const result = await generateText({
        model,
        system: record.systemPrompt,
        messages,
        tools,
        stopWhen: stepCountIs(turn.replies.length + 20),
      });
      for (const step of result.steps) {
        for (const output of step.toolResults)
          if (output.toolName === 'tool_output_cache') pages.set(output.toolCallId, String(output.output));
      }
      messages.push(...result.responseMessages);
    }
  } finally {
    agent.events.off('payload-composed', onPayload);
  }
  return {
    requests: replay.requests,
    newestUser: replay.newestUser,
    stats,
    messages,
    expansions: replay.expansions.map((expansion) => ({
      ...expansion,
      pages: expansion.callIds.map((id) => pages.get(id) ?? ''),
    })),
    turns: turns.length,
  };
}
