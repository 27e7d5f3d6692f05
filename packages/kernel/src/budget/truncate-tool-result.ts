import { type ITokenCounter } from '@ctxkit/core';
import { baseName, countLineFeeds, truncateToFit } from '@ctxkit/core/strategy-kit';

import { renderOutlineView } from '../small-context/outline/outline-view';
import type { SmallContextIntensity } from '../small-context/small-context-plan';
import {
  DEFAULT_TOOL_OUTPUT_CAPS,
  type ResolvedToolOutputPolicy,
  type ToolOutputCaps,
  type ToolOutputTruncation,
} from './tool-output-policy';

/** Smallest token allowance a truncated tool output gets (room for a head, a tail and the marker). @default 48 */
export const MIN_TOOL_OUTPUT_TOKENS = 48;

/** What the kernel did to one tool output before it entered the history. */
export interface ToolOutputTruncationReport {
  toolCallId: string;
  toolName: string;
  category: ResolvedToolOutputPolicy['category'];
  /** The cut applied (`none` when the output fit). */
  kind: ToolOutputTruncation;
  /** True when the memory-protection cap cut it first. */
  capped: boolean;
  truncated: boolean;
  /** Tokens of the output as the tool returned it (after the cap), and as it entered the history. */
  tokensBefore: number;
  tokensAfter: number;
  /** The token limit it was cut to (the budget's tool output limit, shared by the step's calls). */
  limit: number;
  /** For outline views: the file's line count and how many lines were shown verbatim. */
  outline?: { lineCount: number; shownLines: number };
}

/** Input of {@link truncateToolResult}. */
export interface TruncateToolResultInput {
  toolCallId: string;
  toolName: string;
  content: string;
  policy: ResolvedToolOutputPolicy;
  /** Tokens this output may take (the same number the tool got as `toolOutputTokenLimit`). */
  limit: number;
  counter: ITokenCounter;
  /** Mode B's intensity: whether large file reads come back as outline + part. @default 'off' */
  splitReading?: SmallContextIntensity;
  caps?: Partial<ToolOutputCaps>;
}

function firstLines(text: string, lines: number): { text: string; cut: boolean } {
  let at = -1;
  for (let line = 0; line < lines; line++) {
    at = text.indexOf('\n', at + 1);
    if (at === -1) return { text, cut: false };
  }
  if (at === text.length - 1) return { text, cut: false };
  const rest = countLineFeeds(text.slice(at + 1)) + 1;
  return {
    text:
      `${text.slice(0, at)}\n[... ${rest.toLocaleString('en-US')} more lines not read (memory cap of ${lines} ` +
      `lines) ...]`,
    cut: true,
  };
}

/** Mode B decides on outline + part when the read exceeds this share of its limit. */
function outlineShare(splitReading: SmallContextIntensity): number | undefined {
  if (splitReading === 'full') return 0.5;
  if (splitReading === 'on' || splitReading === 'partial') return 1;
  if (splitReading === 'when-needed') return 2;
  return undefined;
}

/**
 * Agent-side truncation: applies the fixed memory-protection cap of the output's
 * category (30 KB of command output, 2000 lines of a file, 500 lines of search results), then cuts
 * the output to its token limit by kind: head + tail with the middle elided for command output,
 * head for file reads, and, under mode B, outline + part for a file read too large for its limit
 * (its line count, its top-level declarations with line ranges, its first and last lines, and an
 * invitation to ask with offset/limit). The cut is UTF-8/surrogate safe and never exceeds the limit.
 */
export function truncateToolResult(input: TruncateToolResultInput): {
  content: string;
  report: ToolOutputTruncationReport;
} {
  const caps = { ...DEFAULT_TOOL_OUTPUT_CAPS, ...input.caps };
  const { policy, counter } = input;
  const limit = Math.max(
    MIN_TOOL_OUTPUT_TOKENS,
    Math.floor(Math.min(input.limit, policy.maxTokens ?? Number.POSITIVE_INFINITY)),
  );
  let content = input.content;
  let capped = false;
  if (policy.kind !== 'none') {
    if (policy.category === 'file-read' || policy.category === 'search') {
      const cut = firstLines(content, policy.category === 'file-read' ? caps.readLines : caps.searchLines);
      content = cut.text;
      capped = cut.cut;
    } else {
      const cut = truncateToFit(content, {
        kind: 'head-tail',
        maxBytes: policy.category === 'command' ? caps.commandBytes : caps.otherBytes,
      });
      content = cut.text;
      capped = cut.truncated;
    }
  }
  const before = counter.count(content);
  const report: ToolOutputTruncationReport = {
    toolCallId: input.toolCallId,
    toolName: input.toolName,
    category: policy.category,
    kind: 'none',
    capped,
    truncated: capped,
    tokensBefore: before,
    tokensAfter: before,
    limit,
  };
  if (policy.kind === 'none') return { content, report };

  const share =
    policy.category === 'file-read' && policy.kind !== 'head-tail' && policy.kind !== 'tail'
      ? outlineShare(input.splitReading ?? 'off')
      : undefined;
  const wantsOutline = policy.kind === 'outline' ? before > limit : share !== undefined && before > limit * share;
  if (wantsOutline) {
    const view = renderOutlineView(input.content, {
      ...(policy.path !== undefined ? { path: policy.path } : {}),
      maxTokens: Math.min(limit, before),
      counter,
    });
    if (view.text !== '') {
      const shownLines = view.shownRanges.reduce((sum, [from, to]) => sum + (to - from + 1), 0);
      return {
        content: view.text,
        report: {
          ...report,
          kind: 'outline',
          truncated: true,
          tokensAfter: view.tokens,
          outline: { lineCount: view.lineCount, shownLines },
        },
      };
    }
  }
  if (before <= limit) return { content, report };
  const kind = policy.kind === 'outline' ? 'head' : policy.kind;
  const cut = truncateToFit(content, { kind, maxTokens: limit, counter });
  return {
    content: cut.text,
    report: { ...report, kind, truncated: true, tokensAfter: cut.tokens ?? counter.count(cut.text) },
  };
}

/** The file name a report's outline speaks of (for advice). */
export function reportFileName(policy: ResolvedToolOutputPolicy): string {
  return policy.path ? baseName(policy.path) : 'The file';
}
