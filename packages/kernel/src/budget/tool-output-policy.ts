/**
 * How a tool's output is cut to the budget (truncation by kind):
 * - `head-tail`: the beginning and the end, the middle elided (command output: the command's echo and its verdict);
 * - `head`: the beginning (file reads, search results);
 * - `tail`: the end (logs whose last lines matter);
 * - `outline`: line count, structure and a part, with an invitation to ask with offset/limit (large files, mode B);
 * - `none`: never cut by the kernel (the strategy still bounds the payload).
 */
export type ToolOutputTruncation = 'head-tail' | 'head' | 'tail' | 'outline' | 'none';

/** What a tool's output is, as far as truncation cares. */
export type ToolOutputCategory = 'command' | 'file-read' | 'search' | 'other';

/** A per-tool override (agent options `toolOutputPolicies: { [toolName]: policy }`). */
export interface ToolOutputPolicy {
  /** How to cut it. A file read with `head` still becomes `outline` under mode B. */
  kind: ToolOutputTruncation;
  /** A fixed token ceiling for this tool's output, below the budget's limit. @default the budget's limit */
  maxTokens?: number;
}

/**
 * Memory-protection caps applied before the budget (the fixed limits stay: bash 30 KB,
 * read 2000 lines, grep 500 matches). They bound what is held at all; the budget then cuts to what fits.
 */
export interface ToolOutputCaps {
  /** Command output, UTF-8 bytes, head + tail. @default 30720 */
  commandBytes: number;
  /** File reads, lines from the top. @default 2000 */
  readLines: number;
  /** Search results, lines from the top. @default 500 */
  searchLines: number;
  /** Any other output, UTF-8 bytes, head + tail. @default 30720 */
  otherBytes: number;
}

/** The fixed memory-protection caps. */
export const DEFAULT_TOOL_OUTPUT_CAPS: Readonly<ToolOutputCaps> = Object.freeze({
  commandBytes: 30 * 1024,
  readLines: 2000,
  searchLines: 500,
  otherBytes: 30 * 1024,
});

/** The policy resolved for one call. */
export interface ResolvedToolOutputPolicy {
  category: ToolOutputCategory;
  kind: ToolOutputTruncation;
  maxTokens?: number;
  /** The file path, for reads (outline heading and language). */
  path?: string;
  /** `policy` when the agent options named this tool, else `default`. */
  source: 'policy' | 'default';
}

const COMMAND_TOOL = /(^|[_\-.])(bash|sh|shell|exec|execute|run|command|cmd|terminal|powershell)([_\-.]|$)/i;
const READ_TOOL = /(^|[_\-.])(read|view|cat|open|file|editor|get_file|read_file)([_\-.]|$)/i;
const SEARCH_TOOL = /(^|[_\-.])(grep|search|find|glob|rg|ripgrep|ls|list)([_\-.]|$)/i;
const PATH_KEYS = ['path', 'file_path', 'filePath', 'file', 'filename', 'target_file'];
const EDITOR_READ_COMMANDS = new Set(['view', 'read', 'cat', 'show']);

function parseArguments(args: unknown): Record<string, unknown> {
  if (typeof args === 'string') {
    try {
      const parsed: unknown = JSON.parse(args);
      return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
    } catch {
      return {};
    }
  }
  return args && typeof args === 'object' && !Array.isArray(args) ? (args as Record<string, unknown>) : {};
}

/**
 * Chooses how a tool's output is cut, from the tool's name and its arguments, unless the agent
 * options name a policy for that tool:
 * - an editor/read tool with a path whose command (when it has one) is `view`/`read` → file read, `head`;
 * - a shell/bash/execute tool, or arguments with a `command` to run → command output, `head-tail`;
 * - grep/search/find/glob/ls → search results, `head`;
 * - anything else → `head-tail`.
 */
export function resolveToolOutputPolicy(
  toolName: string,
  args: unknown,
  policies: Readonly<Record<string, ToolOutputPolicy>> = {},
): ResolvedToolOutputPolicy {
  const parsed = parseArguments(args);
  const path = PATH_KEYS.map((key) => parsed[key]).find(
    (value): value is string => typeof value === 'string' && value.length > 0,
  );
  const command = typeof parsed.command === 'string' ? parsed.command : undefined;
  let category: ToolOutputCategory;
  if (
    path !== undefined &&
    (command === undefined
      ? READ_TOOL.test(toolName) || !COMMAND_TOOL.test(toolName)
      : EDITOR_READ_COMMANDS.has(command))
  ) {
    category = 'file-read';
  } else if (COMMAND_TOOL.test(toolName) || (command !== undefined && path === undefined)) {
    category = 'command';
  } else if (SEARCH_TOOL.test(toolName)) {
    category = 'search';
  } else {
    category = 'other';
  }
  const defaults: Record<ToolOutputCategory, ToolOutputTruncation> = {
    command: 'head-tail',
    'file-read': 'head',
    search: 'head',
    other: 'head-tail',
  };
  const override = Object.prototype.hasOwnProperty.call(policies, toolName) ? policies[toolName] : undefined;
  const resolved: ResolvedToolOutputPolicy = {
    category,
    kind: override?.kind ?? defaults[category],
    source: override ? 'policy' : 'default',
  };
  if (override?.maxTokens !== undefined) resolved.maxTokens = override.maxTokens;
  if (path !== undefined) resolved.path = path;
  return resolved;
}
