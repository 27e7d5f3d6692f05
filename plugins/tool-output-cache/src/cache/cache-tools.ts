import type { ContributedTool, ToolDefinition } from '@ctxkit/core';

import { ToolArgumentsError } from './tool-arguments-error';
import { READ_DEFAULT_LIMIT, type ToolOutputCache } from './tool-output-cache';

/** Name of the expand tool. */
export const TOOL_OUTPUT_CACHE_TOOL = 'tool_output_cache';
/** Name of the search tool. */
export const TOOL_OUTPUT_CACHE_GREP_TOOL = 'tool_output_cache_grep';
/** Name of the manual compaction tool. */
export const COMPACT_TOOL = 'compact';

// The definitions are kept small: they are sent with every payload that offers them. Limits the
// schemas leave out (line and match bounds) are enforced by the executors.

/** Definition of `tool_output_cache({ ref_id, offset?, limit?, char_offset? })`. */
export const TOOL_OUTPUT_CACHE_DEFINITION: ToolDefinition = {
  type: 'function',
  function: {
    name: TOOL_OUTPUT_CACHE_TOOL,
    description:
      `Read a trimmed tool output by its ref (to_…) as numbered lines; offset: first line, limit: lines ` +
      `(${READ_DEFAULT_LIMIT}), char_offset: chars of line offset to skip.`,
    parameters: {
      type: 'object',
      properties: {
        ref_id: { type: 'string' },
        offset: { type: 'integer' },
        limit: { type: 'integer' },
        char_offset: { type: 'integer' },
      },
      required: ['ref_id'],
    },
  },
};

/** Definition of `tool_output_cache_grep({ ref_id, pattern, context?, max_matches?, ignore_case? })`. */
export const TOOL_OUTPUT_CACHE_GREP_DEFINITION: ToolDefinition = {
  type: 'function',
  function: {
    name: TOOL_OUTPUT_CACHE_GREP_TOOL,
    description: 'Search a trimmed tool output by its ref (to_…) for a regex; returns numbered matching lines.',
    parameters: {
      type: 'object',
      properties: {
        ref_id: { type: 'string' },
        pattern: { type: 'string' },
        context: { type: 'integer' },
        max_matches: { type: 'integer' },
        ignore_case: { type: 'boolean' },
      },
      required: ['ref_id', 'pattern'],
    },
  },
};

/** Definition of the `compact` tool. */
export const COMPACT_DEFINITION: ToolDefinition = {
  type: 'function',
  function: {
    name: COMPACT_TOOL,
    description: 'Replace older turns by a summary (the transcript is saved); focus: what to keep.',
    parameters: { type: 'object', properties: { focus: { type: 'string' } } },
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
  if (typeof value !== 'object' || Array.isArray(value))
    throw new ToolArgumentsError(tool, 'the arguments must be a JSON object');
  return value as Record<string, unknown>;
}

function optionalInteger(tool: string, args: Record<string, unknown>, name: string): number | undefined {
  const value = args[name];
  if (value === undefined || value === null) return undefined;
  const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isFinite(number))
    throw new ToolArgumentsError(tool, `${name} must be an integer`);
  return Math.floor(number);
}

/** The expand and grep tools over one cache, as definitions plus executors the kernel can register. */
export function createCacheTools(cache: ToolOutputCache): ContributedTool[] {
  return [
    {
      definition: TOOL_OUTPUT_CACHE_DEFINITION,
      async execute(args) {
        const input = argumentsObject(TOOL_OUTPUT_CACHE_TOOL, args);
        return cache.read(input.ref_id, {
          offset: optionalInteger(TOOL_OUTPUT_CACHE_TOOL, input, 'offset'),
          limit: optionalInteger(TOOL_OUTPUT_CACHE_TOOL, input, 'limit'),
          charOffset: optionalInteger(TOOL_OUTPUT_CACHE_TOOL, input, 'char_offset'),
        });
      },
    },
    {
      definition: TOOL_OUTPUT_CACHE_GREP_DEFINITION,
      async execute(args) {
        const input = argumentsObject(TOOL_OUTPUT_CACHE_GREP_TOOL, args);
        if (typeof input.pattern !== 'string' || input.pattern === '')
          throw new ToolArgumentsError(TOOL_OUTPUT_CACHE_GREP_TOOL, 'pattern must be a non-empty string');
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
      return (
        'Compaction scheduled: the full conversation will be saved as a transcript and replaced by a summary ' +
        'plus the latest turn before the next step.'
      );
    },
  };
}
