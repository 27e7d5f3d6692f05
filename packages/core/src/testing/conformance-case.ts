import type { ChatMessage } from '../contracts/chat-message';
import type { ToolDefinition } from '../contracts/tool-definition';

/** The budget a case runs at: merged into the strategy's config as `maxContextTokens` / `reserveOutputTokens`. */
export interface CaseBudget {
  maxContextTokens: number;
  reserveOutputTokens: number;
}

/**
 * One step of a case, on the prefix `history.slice(0, upTo)`: ask for a payload, or report a
 * finished turn (then wait for `whenIdle()` where the strategy has it).
 */
export type ConformanceStep = { kind: 'compose'; upTo: number } | { kind: 'turn-complete'; upTo: number };

/**
 * What a case accepts as an outcome of `composePayload`:
 * - `payload`: a payload that keeps every invariant (a `CTXKIT_BUDGET_EXCEEDED` rejection is also
 *   accepted when system prompt + tools take more than half of the budget, and required when they
 *   exceed it);
 * - `payload-or-typed-error`: as `payload`, or a rejection with any `CtxkitError` (hostile input);
 * - `typed-error`: a rejection with a `CtxkitError` (e.g. an unknown role);
 * - `budget-exceeded`: a rejection with code `CTXKIT_BUDGET_EXCEEDED`.
 */
export type CaseExpectation = 'payload' | 'payload-or-typed-error' | 'typed-error' | 'budget-exceeded';

/** Where a case comes from. */
export type CaseFamily = 'property' | 'conversation' | 'hostile' | 'budget' | 'long-history' | 'reporting';

/** One scenario the conformance suite plays against a fresh strategy instance. */
export interface ConformanceCase {
  name: string;
  family: CaseFamily;
  systemPrompt: string;
  /** The whole history; steps play prefixes of it. Deep-frozen by the runner. */
  history: ChatMessage[];
  tools: ToolDefinition[];
  ragContext?: string;
  budget: CaseBudget;
  steps: ConformanceStep[];
  expect: CaseExpectation;
}
