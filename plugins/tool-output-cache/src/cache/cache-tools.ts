import type { ContributedTool, ToolDefinition } from '@ctxkit/core';

import { ToolArgumentsError } from './tool-arguments-error';
import { READ_DEFAULT_LIMIT, type ToolOutputCache } from './tool-output-cache';

// The definitions are kept small: they are sent with every payload that offers them. The executors enforce the bounds
// the schemas leave out.

/** Definition of `tool_output_cache({ ref_id, offset?, limit?, char_offset? })`. */
export const TOOL_OUTPUT_CACHE_DEFINITION: ToolDefinition = {
  type: 'function',
  function: {
    name: 'tool_output_cache',
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
    name: 'tool_output_cache_grep',
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

export const COMPACT_DEFINITION: ToolDefinition = {
  type: 'function',
  function: {
    name: 'compact',
    description: 'Replace older turns by a summary (the transcript is saved); focus: what to keep.',
    parameters: { type: 'object', properties: { focus: { type: 'string' } } },
  },
};

/**
 * A contributed tool whose executor is given its arguments as an object (from a JSON string, `{}` for none), and its
 * integer arguments by name.
 */
function contributed(
  definition: ToolDefinition,
  run: (input: Record<string, unknown>, integer: (name: string) => number | undefined) => Promise<string> | string,
): ContributedTool {
  const tool = definition.function.name;
  return {
    definition,
    async execute(args) {
      let value = args;
      if (typeof value === 'string') {
        try {
          value = value.trim() === '' ? {} : JSON.parse(value);
        } catch {
          throw new ToolArgumentsError(tool, 'the arguments are not valid JSON');
        }
      }
      value ??= {};
      if (typeof value !== 'object' || Array.isArray(value))
        throw new ToolArgumentsError(tool, 'the arguments must be a JSON object');
      const input = value as Record<string, unknown>;
      return run(input, (name) => {
        const argument = input[name];
        if (argument === undefined || argument === null) return undefined;
        const number = typeof argument === 'string' && argument.trim() !== '' ? Number(argument) : argument;
        if (typeof number !== 'number' || !Number.isFinite(number))
          throw new ToolArgumentsError(tool, `${name} must be an integer`);
        return Math.floor(number);
      });
    },
  };
}

/** The expand and grep tools over one cache. */
export function createCacheTools(cache: ToolOutputCache): ContributedTool[] {
  return [
    contributed(TOOL_OUTPUT_CACHE_DEFINITION, (input, integer) =>
      cache.read(input.ref_id, {
        offset: integer('offset'),
        limit: integer('limit'),
        charOffset: integer('char_offset'),
      }),
    ),
    contributed(TOOL_OUTPUT_CACHE_GREP_DEFINITION, (input, integer) => {
      if (typeof input.pattern !== 'string' || input.pattern === '')
        throw new ToolArgumentsError('tool_output_cache_grep', 'pattern must be a non-empty string');
      return cache.grep(input.ref_id, {
        pattern: input.pattern,
        context: integer('context'),
        maxMatches: integer('max_matches'),
        ignoreCase: input.ignore_case === true,
      });
    }),
  ];
}

/** The `compact` tool: records the request; the strategy compacts at its next hook or payload. */
export function createCompactTool(request: (focus: string | undefined) => void): ContributedTool {
  return contributed(COMPACT_DEFINITION, (input) => {
    request(typeof input.focus === 'string' && input.focus.trim() !== '' ? input.focus.trim() : undefined);
    return (
      'Compaction scheduled: the full conversation will be saved as a transcript and replaced by a summary ' +
      'plus the latest turn before the next step.'
    );
  });
}
