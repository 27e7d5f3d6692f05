import type { ContributedTool, ToolDefinition } from '@ctxkit/core';
import { ToolArgumentsError } from './tool-arguments-error';
import { GREP_DEFAULT_MAX_MATCHES, GREP_MAX_CONTEXT, GREP_MAX_MATCHES, READ_DEFAULT_LIMIT, type ToolOutputCache } from './tool-output-cache';

/** Name of the expand tool (seed 000 §1.8). */
export const TOOL_OUTPUT_CACHE_TOOL = 'tool_output_cache';
/** Name of the search tool. */
export const TOOL_OUTPUT_CACHE_GREP_TOOL = 'tool_output_cache_grep';
/** Name of the manual compaction tool (seed 001 layer 3). */
export const COMPACT_TOOL = 'compact';

/** Definition of `tool_output_cache({ ref_id, offset?, limit? })`. */
export const TOOL_OUTPUT_CACHE_DEFINITION: ToolDefinition = {
  type: 'function',
  function: {
    name: TOOL_OUTPUT_CACHE_TOOL,
    description:
      'Show a cached tool output that was shortened or trimmed in this conversation (its ref appears as ref=to_…). Returns numbered lines like a file read; use offset and limit (in lines) to page through large outputs.',
    parameters: {
      type: 'object',
      properties: {
        ref_id: { type: 'string', description: 'The ref id exactly as shown, e.g. to_0123456789abcdef0123456789abcdef.' },
        offset: { type: 'integer', minimum: 1, description: 'First line to show (1-based). Default 1.' },
        limit: { type: 'integer', minimum: 1, description: `Lines to show at most. Default ${READ_DEFAULT_LIMIT}.` },
      },
      required: ['ref_id'],
      additionalProperties: false,
    },
  },
};

/** Definition of `tool_output_cache_grep({ ref_id, pattern, context?, max_matches? })`. */
export const TOOL_OUTPUT_CACHE_GREP_DEFINITION: ToolDefinition = {
  type: 'function',
  function: {
    name: TOOL_OUTPUT_CACHE_GREP_TOOL,
    description: 'Search a cached tool output (ref=to_…) for a regular expression; returns the matching lines with their line numbers.',
    parameters: {
      type: 'object',
      properties: {
        ref_id: { type: 'string', description: 'The ref id exactly as shown.' },
        pattern: { type: 'string', description: 'A JavaScript regular expression (plain text works too).' },
        context: { type: 'integer', minimum: 0, maximum: GREP_MAX_CONTEXT, description: 'Lines of context around each match. Default 0.' },
        max_matches: { type: 'integer', minimum: 1, maximum: GREP_MAX_MATCHES, description: `Matches to show at most. Default ${GREP_DEFAULT_MAX_MATCHES}.` },
        ignore_case: { type: 'boolean', description: 'Match case-insensitively. Default false.' },
      },
      required: ['ref_id', 'pattern'],
      additionalProperties: false,
    },
  },
};

/** Definition of the `compact` tool (seed 001 layer 3). */
export const COMPACT_DEFINITION: ToolDefinition = {
  type: 'function',
  function: {
    name: COMPACT_TOOL,
    description:
      'Compact the conversation now: it is saved in full, then replaced by a summary plus the latest turn before your next step. Use it when the conversation is long and older details are no longer needed.',
    parameters: {
      type: 'object',
      properties: { focus: { type: 'string', description: 'What the summary should keep in particular (optional).' } },
      additionalProperties: false,
    },
  },
};

function argumentsObject(tool: string, args: unknown): Record<string, unknown> {
  let value = args;
  if (typeof value === 'string') {
    try {
      value = value.trim() === '' ? {} : JSON.parse(value);
    } catch {
      throw new ToolArgumentsError(tool, 'the arguments are not valid JSON');
    }
  }
  if (value === undefined || value === null) value = {};
  if (typeof value !== 'object' || Array.isArray(value)) throw new ToolArgumentsError(tool, 'the arguments must be a JSON object');
  return value as Record<string, unknown>;
}

function optionalInteger(tool: string, args: Record<string, unknown>, name: string): number | undefined {
  const value = args[name];
  if (value === undefined || value === null) return undefined;
  const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isFinite(number)) throw new ToolArgumentsError(tool, `${name} must be an integer`);
  return Math.floor(number);
}

/** The expand and grep tools over one cache, as definitions plus executors the kernel can register. */
export function createCacheTools(cache: ToolOutputCache): ContributedTool[] {
  return [
    {
      definition: TOOL_OUTPUT_CACHE_DEFINITION,
      async execute(args) {
        const input = argumentsObject(TOOL_OUTPUT_CACHE_TOOL, args);
        return cache.read(input.ref_id, { offset: optionalInteger(TOOL_OUTPUT_CACHE_TOOL, input, 'offset'), limit: optionalInteger(TOOL_OUTPUT_CACHE_TOOL, input, 'limit') });
      },
    },
    {
      definition: TOOL_OUTPUT_CACHE_GREP_DEFINITION,
      async execute(args) {
        const input = argumentsObject(TOOL_OUTPUT_CACHE_GREP_TOOL, args);
        if (typeof input.pattern !== 'string' || input.pattern === '') throw new ToolArgumentsError(TOOL_OUTPUT_CACHE_GREP_TOOL, 'pattern must be a non-empty string');
        return cache.grep(input.ref_id, {
          pattern: input.pattern,
          context: optionalInteger(TOOL_OUTPUT_CACHE_GREP_TOOL, input, 'context'),
          maxMatches: optionalInteger(TOOL_OUTPUT_CACHE_GREP_TOOL, input, 'max_matches'),
          ignoreCase: input.ignore_case === true,
        });
      },
    },
  ];
}

/** The `compact` tool: records the request; the strategy compacts at its next hook or payload. */
export function createCompactTool(request: (focus: string | undefined) => void): ContributedTool {
  return {
    definition: COMPACT_DEFINITION,
    async execute(args) {
      const input = argumentsObject(COMPACT_TOOL, args);
      const focus = typeof input.focus === 'string' && input.focus.trim() !== '' ? input.focus.trim() : undefined;
      request(focus);
      return 'Compaction scheduled: the full conversation will be saved as a transcript and replaced by a summary plus the latest turn before the next step.';
    },
  };
}
