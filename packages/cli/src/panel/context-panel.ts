import type { PayloadStats, UsageLevel } from '@ctxkit/core';
import { createColors } from 'picocolors';

/** What the panel shows besides the payload's stats. */
export interface PanelInput {
  stats: PayloadStats;
  /** Messages in the payload. */
  messages: number;
  /** Tokens of the newest tool output in the payload. */
  lastToolOutputTokens: number;
  /** Running counts for the session. */
  compactions: number;
  truncations: number;
  warnings: number;
  /** The model call's number within the conversation, shown in the title. */
  call?: number;
}

/** How the context panel is drawn. */
export interface PanelOptions {
  debug?: boolean;
  color?: boolean;
  /** Inner width in characters. @default 27, 30 with `debug` */
  width?: number;
}

/** Colour by usage level: 0-60 green, 60-80 yellow, 80-90 red, 90+ critical (red, inverse). */
function paint(level: UsageLevel, text: string, colors: ReturnType<typeof createColors>): string {
  switch (level) {
    case 'ok':
      return colors.green(text);
    case 'warn':
      return colors.yellow(text);
    case 'compact':
      return colors.red(text);
    case 'critical':
      return colors.inverse(colors.bold(colors.red(text)));
  }
}

function short(tokens: number): string {
  if (tokens >= 1024 && tokens % 1024 === 0) return `${tokens / 1024}K`;
  if (tokens >= 1000 && tokens % 1000 === 0) return `${tokens / 1000}K`;
  if (tokens >= 1000) return `${(tokens / 1000).toFixed(tokens >= 10000 ? 0 : 1)}K`;
  return String(tokens);
}

function pct(part: number, whole: number): string {
  return whole > 0 ? `${Math.round((part / whole) * 100)}%` : '0%';
}

// Width in terminal cells of text without ANSI escapes.
function visible(text: string): number {
  return [...text.replace(/\u001b\[[0-9;]*m/g, '')].length;
}

/**
 * The context panel: used / window with a percentage and a bar, coloured by level; with
 * `debug`, the per-section breakdown (system, tool definitions, dynamic, memory/summary, history,
 * last tool output, remaining) and message, compaction, truncation and warning counts.
 */
export function renderContextPanel(input: PanelInput, options: PanelOptions = {}): string {
  const colors = createColors(options.color ?? false);
  const width = options.width ?? (options.debug ? 30 : 27);
  const { stats } = input;
  const window = stats.budget.contextWindow > 0 ? stats.budget.maxContextTokens : stats.budget.contextWindow;
  const used = stats.output_tokens;
  const ratio = window > 0 ? used / window : 1;
  const level = stats.usageLevel;
  const barWidth = width - 2;
  const filled = Math.max(0, Math.min(barWidth, Math.round(ratio * barWidth)));
  const bar = paint(level, '█'.repeat(filled), colors) + '░'.repeat(barWidth - filled);
  const lines: string[] = [];
  const title = input.call !== undefined ? ` Context · call ${input.call} ` : ' Context ';
  const line = (text: string) => `│ ${text}${' '.repeat(Math.max(0, width - 1 - visible(text)))}│`;
  lines.push(`┌─${title}${'─'.repeat(Math.max(0, width - visible(title) - 1))}┐`);
  if (options.debug) {
    lines.push(
      line(
        paint(
          level,
          `${used.toLocaleString('en-US')} / ${window.toLocaleString('en-US')} tokens (${pct(used, window)})`,
          colors,
        ),
      ),
    );
  } else {
    lines.push(line(paint(level, `${short(used)} / ${short(window)}  (${pct(used, window)})`, colors)));
  }
  lines.push(line(bar));
  if (options.debug) {
    const s = stats.sections;
    const row = (name: string, tokens: number) =>
      line(`${name.padEnd(11)}${tokens.toLocaleString('en-US').padStart(7)}  (${pct(tokens, window).padStart(3)})`);
    lines.push(line(''));
    lines.push(row('system:', s.system));
    lines.push(row('tools def:', s.tools));
    lines.push(row('dynamic:', s.dynamic));
    lines.push(row('memory:', s.memory));
    lines.push(row('history:', s.history));
    lines.push(row('last out:', input.lastToolOutputTokens));
    lines.push(line('─'.repeat(width - 6)));
    lines.push(row('remaining:', Math.max(0, window - used)));
    lines.push(line(''));
    lines.push(line(`msgs: ${input.messages}  compact: ${input.compactions}`));
    lines.push(line(`truncated: ${input.truncations}  warnings: ${input.warnings}`));
    lines.push(line(`level: ${paint(level, level, colors)}`));
  }
  lines.push(`└${'─'.repeat(width)}┘`);
  return lines.join('\n');
}
