import {
  hasContributedTools,
  type IContextManager,
  PIN_CONTEXT_TOOL,
  type ToolDefinition,
  UNPIN_CONTEXT_TOOL,
} from '@ctxkit/core';

import { ContributedToolsMissingError } from './errors/contributed-tools-missing-error';

/** The definitions of the tools a strategy contributes (none when it has no `contributedTools`). */
export function contributedDefinitions(manager: IContextManager): ToolDefinition[] {
  return hasContributedTools(manager) ? manager.contributedTools().map((tool) => tool.definition) : [];
}

/**
 * True when two definitions describe the same function tool (a missing schema is the empty object schema the tool is
 * sent with).
 */
export function sameToolDefinition(a: Readonly<ToolDefinition>, b: Readonly<ToolDefinition>): boolean {
  const [x, y] = [a.function, b.function];
  const schema = (definition: ToolDefinition['function']) =>
    JSON.stringify(definition.parameters ?? { type: 'object', properties: {} });
  return x.name === y.name && x.description === y.description && x.strict === y.strict && schema(x) === schema(y);
}

/**
 * The session's pin tools (a manifest with `pinTool`), contributed beside the strategy's: no strategy
 * adds them to a payload, so they are given to it with the caller's tools, as the kernel gives them.
 */
const SESSION_TOOLS: ReadonlySet<string> = new Set([PIN_CONTEXT_TOOL, UNPIN_CONTEXT_TOOL]);

/**
 * The tools to give the strategy among a call's definitions: the caller's own. The strategy's tools
 * (as `context.tools()` registers them) are left out, so that a payload carries one exactly when the
 * strategy offers it (it adds its own definitions when they are useful: `compact` only with an LLM
 * client to write the summary). A tool of the caller's with a strategy tool's name but another
 * definition, one that hides the strategy's, is kept.
 */
export function callerDefinitions(
  definitions: readonly ToolDefinition[],
  contributed: readonly ToolDefinition[],
): ToolDefinition[] {
  const strategyOwn = contributed.filter((own) => !SESSION_TOOLS.has(own.function.name));
  return definitions.filter((definition) => !strategyOwn.some((own) => sameToolDefinition(own, definition)));
}

/**
 * Checks that the AI SDK call registers every tool the strategy contributes or puts in a payload.
 * @throws ContributedToolsMissingError (`CTXKIT_TOOL_NOT_FOUND`) naming the missing tools
 */
export function assertToolsRegistered(
  strategyId: string,
  required: Iterable<string>,
  registered: ReadonlySet<string>,
): void {
  const missing = [...new Set(required)].filter((name) => !registered.has(name));
  if (missing.length > 0) throw new ContributedToolsMissingError(strategyId, missing);
}
