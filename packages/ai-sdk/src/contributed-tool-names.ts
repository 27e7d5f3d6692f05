import { hasContributedTools, type IContextManager } from '@ctxkit/core';
import { ContributedToolsMissingError } from './errors/contributed-tools-missing-error';

/** The names of the tools a strategy contributes (none when it has no `contributedTools`). */
export function contributedToolNames(manager: IContextManager): string[] {
  return hasContributedTools(manager) ? manager.contributedTools().map((tool) => tool.definition.function.name) : [];
}

/**
 * Checks that the AI SDK call registers every tool the strategy contributes or puts in a payload.
 * @throws ContributedToolsMissingError (`CTXKIT_TOOL_NOT_FOUND`) naming the missing tools
 */
export function assertToolsRegistered(strategyId: string, required: Iterable<string>, registered: ReadonlySet<string>): void {
  const missing = [...new Set(required)].filter((name) => !registered.has(name));
  if (missing.length > 0) throw new ContributedToolsMissingError(strategyId, missing);
}
