import type { ITokenCounter, ToolDefinition } from '@ctxkit/core';

import type { SmallContextIntensity, SmallContextOptions } from './small-context-plan';

/** Share of the window above which `partial` mode C switches to the compact prompt and tools. @default 0.25 */
export const PARTIAL_PROMPT_SHARE = 0.25;

/** What mode C chose for one call. */
export interface PromptAndTools {
  systemPrompt: string;
  toolDefinitions: ToolDefinition[];
  /** True when the compact prompt or the essential subset replaced the full ones. */
  applied: boolean;
  /** Tokens the full prompt and tools would have taken, and what the chosen ones take. */
  tokensBefore: number;
  tokensAfter: number;
  reason: string;
}

/**
 * Mode C: below the small-context threshold the manifest's `compactSystemPrompt` replaces
 * the system prompt and only `essentialTools` are sent. `full` (the smallest windows) applies them
 * always and keeps only the listed tools, the strategy's own included (name them in `essentialTools`
 * to keep them); `on` and `partial` filter the user's tools only (the strategy's tools, which recover
 * what it trimmed, stay), `partial` only when the full prompt and tools take more than a quarter of the window;
 * `off` and `when-needed` never (C has no budget trigger of its own). Without a compact prompt or an
 * essential list there is nothing to switch to, and the call is unchanged.
 */
export function selectPromptAndTools(input: {
  intensity: SmallContextIntensity;
  systemPrompt: string;
  toolDefinitions: readonly ToolDefinition[];
  userToolNames: ReadonlySet<string>;
  options: SmallContextOptions;
  contextWindow: number;
  counter: ITokenCounter;
}): PromptAndTools {
  const { options, counter } = input;
  const fullTokens = counter.count(input.systemPrompt) + counter.countTools(input.toolDefinitions);
  const unchanged = (reason: string): PromptAndTools => ({
    systemPrompt: input.systemPrompt,
    toolDefinitions: input.toolDefinitions.slice(),
    applied: false,
    tokensBefore: fullTokens,
    tokensAfter: fullTokens,
    reason,
  });
  const hasCompact = options.compactSystemPrompt !== undefined || options.essentialTools !== undefined;
  if (!hasCompact) return unchanged('no compactSystemPrompt or essentialTools declared');
  if (input.intensity === 'off' || input.intensity === 'when-needed') return unchanged('mode C is off at this window');
  if (input.intensity === 'partial' && fullTokens <= input.contextWindow * PARTIAL_PROMPT_SHARE) {
    return unchanged(`the full prompt and tools take ${fullTokens} tokens, within a quarter of the window`);
  }
  const essential = options.essentialTools ? new Set(options.essentialTools) : undefined;
  const systemPrompt = options.compactSystemPrompt ?? input.systemPrompt;
  // `full` (below half the threshold) keeps only the essential tools, the strategy's included;
  // `on`/`partial` filter the user's tools and keep the strategy's.
  const filterAll = input.intensity === 'full';
  const toolDefinitions = input.toolDefinitions.filter(
    (definition) =>
      !essential ||
      essential.has(definition.function.name) ||
      (!filterAll && !input.userToolNames.has(definition.function.name)),
  );
  const after = counter.count(systemPrompt) + counter.countTools(toolDefinitions);
  return {
    systemPrompt,
    toolDefinitions,
    applied: true,
    tokensBefore: fullTokens,
    tokensAfter: after,
    reason:
      `compact system prompt and ${toolDefinitions.length} of ${input.toolDefinitions.length} ` +
      `tools: ${fullTokens} → ${after} tokens`,
  };
}
