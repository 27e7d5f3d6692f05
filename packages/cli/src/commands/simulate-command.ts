import {
  type ChatMessage,
  createContextRuntime,
  createTokenCounter,
  CtxkitError,
  type PayloadStats,
  type ToolDefinition,
} from '@ctxkit/core';

import type { CliOutput } from '../cli-output';
import type { MessageShape } from '../lab/message-shape';
import { printSkipped } from '../lab/print-skipped';
import { readTranscript } from '../lab/read-transcript';
import { replayConversation } from '../lab/replay-conversation';
import { sessionIdFor } from '../lab/session-id';
import { renderContextPanel } from '../panel/context-panel';
import { renderReductionPreview } from '../panel/reduction-preview-text';

/** The options of `ctxkit simulate` (see docs/11-cli.md). */
export interface SimulateOptions {
  agent: string;
  transcript: string;
  /** The message shape of the transcript. @default detected per conversation */
  format?: MessageShape;
  conversation?: string;
  window?: number;
  debug?: boolean;
  /** Before each call, print what the compose would reduce (the session's preview). */
  preview?: boolean;
  pluginDir?: string[];
}

/**
 * `ctxkit simulate`: replays one conversation turn by turn through the agent's strategy and prints
 * the context panel at every model call.
 */
export async function simulateCommand(options: SimulateOptions, output: CliOutput): Promise<number> {
  const runtime = await createContextRuntime({ pluginDirs: options.pluginDir });
  const [record] = await readTranscript(options.transcript, {
    conversation: options.conversation,
    limit: options.conversation ? undefined : 1,
    format: options.format,
    onSkip: printSkipped(output),
  });
  if (!record) {
    output.err(`No conversation in ${options.transcript}.\n`);
    return 1;
  }
  const loaded = await runtime.loadAgent(options.agent);
  let agent = loaded;
  let window = options.window;
  const config = { ...((loaded.config as Record<string, unknown> | undefined) ?? {}) };
  if (options.window) {
    await loaded.dispose();
    config.maxContextTokens = options.window;
    agent = await runtime.loadAgent({
      ...(loaded.manifest as Record<string, unknown>),
      contextStrategy: { type: 'plugin', pluginId: loaded.strategyId, config },
    });
  }
  const counter = createTokenCounter({ model: typeof config.model === 'string' ? config.model : 'gpt-4o' });
  window ??=
    typeof config.maxContextTokens === 'number'
      ? config.maxContextTokens
      : runtime.models.get(typeof config.model === 'string' ? config.model : 'gpt-4o').contextWindow;
  output.out(
    `Agent ${agent.id} · strategy ${agent.strategyId} · conversation ${record.id} · ` +
      `window ${window.toLocaleString('en-US')} tokens\n\n`,
  );
  let compactions = 0;
  let truncations = 0;
  let warnings = 0;
  let last: PayloadStats | undefined;
  agent.events.on('payload-composed', (event) => {
    last = event.stats;
  });
  agent.events.on('strategy-warning', (event) => output.out(`warning: ${event.message}\n`));
  agent.events.on('usage-level-change', (event) => {
    if (event.to !== 'ok') warnings++;
  });
  const session = agent.forSession(sessionIdFor(record.id));
  let calls = 0;
  try {
    const observations = await replayConversation({
      manager: session,
      record,
      counter,
      window,
      ...(options.preview
        ? {
            beforeCompose: async ({
              systemPrompt,
              history,
              tools,
            }: {
              systemPrompt: string;
              history: ChatMessage[];
              tools: ToolDefinition[];
            }) => {
              calls++;
              try {
                output.out(renderReductionPreview(await session.preview(systemPrompt, history, tools), calls));
              } catch (error) {
                if (!CtxkitError.isInstance(error)) throw error;
                output.out(`preview of call ${calls}: the compose would be rejected: ${error.code}\n`);
              }
            },
          }
        : {}),
      onCall: (observation, payload) => {
        if (observation.error) {
          output.out(
            `call ${observation.call + 1}: rejected ${observation.error.code}: ${observation.error.message}\n\n`,
          );
          return;
        }
        if (!last || !payload) return;
        compactions += last.compacted + last.summarized;
        truncations += last.trimmed;
        const lastTool = [...payload.messages].reverse().find((message: ChatMessage) => message.role === 'tool');
        output.out(
          `${renderContextPanel(
            {
              stats: last,
              messages: payload.messages.length,
              lastToolOutputTokens: lastTool ? counter.countMessage(lastTool) : 0,
              compactions,
              truncations,
              warnings,
              call: observation.call + 1,
            },
            { debug: options.debug, color: output.color },
          )}\n`,
        );
        if (observation.problems.length) output.out(`  invalid payload: ${observation.problems.join(', ')}\n`);
        output.out('\n');
      },
    });
    const bad = observations.filter((o) => o.problems.length > 0 || o.overBudget).length;
    output.out(`${observations.length} model calls replayed; ${bad} invalid or over-budget payloads.\n`);
    const epochs = await session.epochs();
    if (epochs.length > 0) {
      output.out(`${epochs.length} undoable epochs (session.undo(id) restores the state before one):\n`);
      for (const epoch of epochs)
        output.out(`  ${epoch.id}  ${epoch.kind.padEnd(10)} turn ${epoch.turn}: ${epoch.description}\n`);
    }
    return bad > 0 ? 1 : 0;
  } finally {
    await agent.dispose();
  }
}
