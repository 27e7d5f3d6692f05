import type { ChatMessage, IContextStore, ILLMClient, ToolCall } from '@ctxkit/core';
import { createConformanceContext } from '@ctxkit/core/testing';

import { createStrategy } from './tool-output-cache-strategy';
import type { ToolOutputCacheStrategyConfig } from './tool-output-cache-strategy-config';

/** A tool call for test histories. */
export function call(id: string, name = 'execute_bash', args = '{}'): ToolCall {
  return { id, type: 'function', function: { name, arguments: args } };
}

/** One tool exchange: the assistant's call and its result. */
export function exchange(id: string, output: string, name = 'execute_bash'): ChatMessage[] {
  return [
    { role: 'assistant', content: null, tool_calls: [call(id, name)] },
    { role: 'tool', tool_call_id: id, content: output },
  ];
}

/** A text of about `lines` lines of 60 characters, distinct per `label`. */
export function output(label: string, lines: number): string {
  return Array.from({ length: lines }, (_, index) => `${label} line ${index} ${'abcdefghij'.repeat(5)}`).join('\n');
}

/** A conversation of one user request, `exchanges` tool exchanges of `linesEach` lines each, and a follow-up. */
export function longHistory(exchanges: number, linesEach: number): ChatMessage[] {
  const history: ChatMessage[] = [{ role: 'user', content: 'Fix the build.' }];
  for (let index = 0; index < exchanges; index++)
    history.push(...exchange(`c${index}`, output(`out${index}`, linesEach)));
  history.push({ role: 'assistant', content: 'Looking further.' }, { role: 'user', content: 'Go on.' });
  return history;
}

/**
 * The strategy of one session on a fresh conformance context (events recorded), or on `store` (another process serving
 * the same session).
 */
export function strategyOn(
  config: ToolOutputCacheStrategyConfig,
  options: { llm?: ILLMClient; store?: IContextStore } = {},
) {
  const overrides = {
    agentId: 'agent-1',
    strategyId: 'std-tool-output-cache-strategy',
    llm: options.llm,
    ...(options.store ? { store: options.store } : {}),
  };
  const recording = createConformanceContext('session-1', overrides, undefined);
  const strategy = createStrategy(config, recording.context);
  const named = (name: string) => recording.events.filter((event) => event.name === name).map((event) => event.payload);
  return { strategy, context: recording.context, events: recording.events, named };
}

/** The retain + summary reply the scripted model writes compactions with. */
export const SUMMARY_REPLY =
  '<retain>ids: ISSUE-7, file src/main.c</retain>\n<summary>The agent read the build logs and is fixing ' +
  'src/main.c.</summary>';
