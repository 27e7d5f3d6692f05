import { type ContributedTool, CtxkitError, ErrorCodes, type ToolDefinition } from '@ctxkit/core';

import { READ_DEFAULT_LIMIT, type ToolOutputCache } from './tool-output-cache';

/** A contributed tool was called with arguments it cannot use; the model gets the message as the tool result. */
class ToolArgumentsError extends CtxkitError {
  constructor(toolName: string, problem: string) {
    super({
      code: ErrorCodes.TOOL_EXECUTION_FAILED,
      category: 'user',
      message: `${toolName}: ${problem}`,
      fix: `Call ${toolName} again with arguments that match its parameters.`,
      details: { toolName, problem },
    });
  }
}

/** A definition kept small (it is sent with every payload that offers it); the executors enforce the bounds. */
function definition(
  name: string,
  description: string,
  types: Record<string, 'string' | 'integer' | 'boolean'>,
  required?: string[],
): ToolDefinition {
  const properties = Object.fromEntries(Object.entries(types).map(([key, type]) => [key, { type }]));
  return {
    type: 'function',
    function: { name, description, parameters: { type: 'object', properties, ...(required ? { required } : {}) } },
  };
}

export const TOOL_OUTPUT_CACHE_DEFINITION = definition(
  'tool_output_cache',
  `Read a trimmed tool output by its ref (to_…) as numbered lines; offset: first line, limit: lines ` +
    `(${READ_DEFAULT_LIMIT}), char_offset: chars of line offset to skip.`,
  { ref_id: 'string', offset: 'integer', limit: 'integer', char_offset: 'integer' },
  ['ref_id'],
);

export const TOOL_OUTPUT_CACHE_GREP_DEFINITION = definition(
  'tool_output_cache_grep',
  'Search a trimmed tool output by its ref (to_…) for a regex; returns numbered matching lines.',
  { ref_id: 'string', pattern: 'string', context: 'integer', max_matches: 'integer', ignore_case: 'boolean' },
  ['ref_id', 'pattern'],
);

export const COMPACT_DEFINITION = definition(
  'compact',
  'Replace older turns by a summary (the transcript is saved); focus: what to keep.',
  { focus: 'string' },
);

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
    contributed(TOOL_OUTPUT_CACHE_DEFINITION, (input, integer) => {
      const [offset, limit, charOffset] = ['offset', 'limit', 'char_offset'].map((name) => integer(name));
      return cache.read(input.ref_id, { offset, limit, charOffset });
    }),
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
