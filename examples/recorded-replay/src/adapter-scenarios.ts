import type { ToolDefinition } from '@ctxkit/core';
import type { BundledConversationName } from '@ctxkit/core/testing';

import { AIRLINE_TOOL_DEFINITIONS } from './airline-tools';

/** One replay: a recorded conversation, the strategy and the ceiling it runs at. */
export interface ReplayScenario {
  name: string;
  conversation: BundledConversationName;
  recordId: string;
  pluginId: string;
  /** The payload's hard ceiling; the output reservation is 0, so the whole ceiling is the payload's. */
  maxContextTokens: number;
  /** The tool definitions; @default the record's own */
  tools?: readonly ToolDefinition[];
}

/**
 * The tau-bench airline run: eight customer messages, 23 tool results of up to 440 tokens; policy and tools take 2,660
 * tokens.
 */
export const AIRLINE_SCENARIO: ReplayScenario = {
  name: 'tau-bench airline, summarization at 4,000 tokens',
  conversation: 'tau-bench-airline',
  recordId: 'tau-bench/airline/gpt-4o/task-33/trial-0',
  pluginId: 'std-summarization-strategy',
  maxContextTokens: 4000,
  tools: AIRLINE_TOOL_DEFINITIONS,
};

/** The OpenHands run: a coding agent fixing a ponyc issue, 22 tool results, 28,300 tokens of history. */
export const CODING_SCENARIO: ReplayScenario = {
  name: 'OpenHands coding run, tool output cache at 16,000 tokens',
  conversation: 'openhands-multi-swe-bench',
  recordId: 'openhands/multi-swe-bench/ponylang__ponyc-4595',
  pluginId: 'std-tool-output-cache-strategy',
  maxContextTokens: 16000,
};
