import type { MessageLife, MessageState, SessionExplanation } from '@ctxkit/core';

import { escapeHtml } from '../report/escape-html';
import { lastWord, spanCalls, spanState } from './explain-text';

/** One colour per state, the same on every page. */
const STATE_COLORS: Record<MessageState, string> = {
  verbatim: '#16a34a',
  pinned: '#0891b2',
  trimmed: '#ca8a04',
  truncated: '#d97706',
  'micro-compacted': '#a16207',
  summarized: '#2563eb',
  compacted: '#7c3aed',
  extracted: '#0f766e',
  recalled: '#db2777',
  dropped: '#9ca3af',
};

function timeline(life: MessageLife, first: number, last: number): string {
  const byCall = new Map(life.calls.map((state) => [state.call, state]));
  const cells: string[] = [];
  for (let call = first; call <= last; call++) {
    const state = byCall.get(call);
    const title =
      state === undefined
        ? `call ${call}: not in the history yet`
        : `call ${call}: ${spanState({ ...state, from: call, to: call })}`;
    const color = state === undefined ? 'transparent' : STATE_COLORS[state.state];
    cells.push(`<span class="cell" style="background:${color}" title="${escapeHtml(title)}"></span>`);
  }
  return (
    `<div class="timeline" role="img" ` +
    `aria-label="${escapeHtml(`message ${life.index}, calls ${first} to ${last}`)}">${cells.join('')}</div>`
  );
}

function legend(): string {
  return Object.entries(STATE_COLORS)
    .map(
      ([state, color]) =>
        `<span class="key"><span class="cell" style="background:${color}"></span>${escapeHtml(state)}</span>`,
    )
    .join(' ');
}

/**
 * The explanation as one self-contained HTML page: for each message holding the string, a strip
 * with one cell per traced compose coloured by its state, and the same spans as `ctxkit explain` prints.
 */
export function explanationHtml(explanation: SessionExplanation, storedRefs?: ReadonlySet<string>): string {
  const first = explanation.firstCall ?? 1;
  const last = explanation.lastCall ?? 0;
  const sections = explanation.messages.map((life) => {
    const ids = life.toolCallIds?.length
      ? ` · ${life.role === 'tool' ? 'answers' : 'calls'} ${life.toolCallIds.join(', ')}`
      : '';
    const seen =
      life.calls.length === 0
        ? 'not in any traced compose yet'
        : life.seenBefore
          ? `seen before call ${life.calls[0]!.call}`
          : `first seen at call ${life.firstSeen}`;
    const spans = life.spans
      .map(
        (span) =>
          `<li><span class="cell" ` +
          `style="background:${STATE_COLORS[span.state]}"></span>` +
          `${escapeHtml(`${spanState(span)} ${spanCalls(span)}`)}</li>`,
      )
      .join('');
    const word = lastWord(life, storedRefs);
    return `<section><h2>message #${life.index} <small>${escapeHtml(life.role + ids)}</small></h2>
<p>${escapeHtml(seen)}</p>
${last >= first ? timeline(life, first, last) : ''}
<ul>${spans}</ul>${word !== undefined ? `\n<p><strong>${escapeHtml(word)}</strong></p>` : ''}
</section>`;
  });
  const title = `Where "${explanation.find}" went · ${explanation.sessionId}`;
  return (
    `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>
body { font: 15px/1.5 system-ui, sans-serif; margin: 1.5rem auto; max-width: 60rem; padding: 0 1rem; color: #111827; }
h1 { font-size: 1.4rem; } h2 { font-size: 1.1rem; margin-bottom: .25rem; } small { color: #6b7280; font-weight: ` +
    `normal; }
.muted { color: #6b7280; }
.timeline { display: flex; flex-wrap: wrap; gap: 2px; margin: .5rem 0; }
.cell { display: inline-block; width: 14px; height: 14px; border-radius: 2px; border: 1px solid #e5e7eb; ` +
    `vertical-align: middle; margin-right: .35rem; }
.timeline .cell { margin-right: 0; }
ul { list-style: none; padding-left: 0; } .key { white-space: nowrap; margin-right: .75rem; }
section { border-top: 1px solid #e5e7eb; padding-top: .5rem; margin-top: 1rem; }
</style>
</head>
<body>
<h1>${escapeHtml(title)}</h1>
<p class="muted">` +
    `${escapeHtml(
      `agent ${explanation.agentId} · ${explanation.strategyId} ` +
        `· ${explanation.calls === 0 ? 'no traced compose' : `calls ${first} to ${last}`}` +
        `${explanation.evicted > 0 ? ` (${explanation.evicted} older calls left out)` : ''} ` +
        `· ${explanation.messages.length} message(s) hold the text`,
    )}</p>
<p>${legend()}</p>
${sections.join('\n')}
</body>
</html>
`
  );
}
