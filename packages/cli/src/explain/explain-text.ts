import type { MessageLife, MessageLifeSpan, SessionExplanation } from '@ctxkit/core';

/** When a span happened: `at call 4` or `from call 4 to call 11`. */
export function spanCalls(span: Pick<MessageLifeSpan, 'from' | 'to'>): string {
  return span.from === span.to ? `at call ${span.from}` : `from call ${span.from} to call ${span.to}`;
}

/** What a span's state means, in a few words. */
export function spanState(span: MessageLifeSpan): string {
  const refs = span.refs?.join(', ');
  switch (span.state) {
    case 'verbatim':
      return 'sent verbatim';
    case 'pinned':
      return 'pinned (sent in the pinned block)';
    case 'summarized':
      return (
        `in ` +
        `summary ${span.summaryVersion !== undefined ? `v${span.summaryVersion}` : '(version unknown)'}` +
        `${span.summaryShortened ? ' (the summary shortened to fit)' : ''}`
      );
    case 'trimmed':
      return refs ? `trimmed behind ref ${refs}` : `trimmed (${span.reason ?? 'shortened'})`;
    case 'recalled':
      return 'recalled (older than the window, sent again in the recall block)';
    case 'compacted':
      return `compacted${refs ? ` into ${refs}` : ''}`;
    case 'extracted':
      return `extracted into the entity state${refs ? ` (${refs})` : ''}`;
    default:
      return `${span.state}${span.reason ? ` (${span.reason})` : ''}${refs ? `, ref ${refs}` : ''}`;
  }
}

/**
 * Where the message can still be read after the last traced compose, when that says more than its last span: a ref that
 * holds it, or nothing but the host's history.
 */
export function lastWord(life: MessageLife, storedRefs: ReadonlySet<string> | undefined): string | undefined {
  const last = life.spans[life.spans.length - 1];
  if (last === undefined) return undefined;
  if (last.refs?.length && last.state !== 'summarized') {
    const ref = last.refs[0]!;
    const stored =
      storedRefs === undefined ? '' : storedRefs.has(ref) ? ' (in the store)' : ' (not found in the store)';
    return `still readable through ref ${ref}${stored}`;
  }
  if (last.state === 'dropped') return `out of the payload since call ${last.from}: only the host's history holds it`;
  return undefined;
}

function messageHeading(life: MessageLife): string {
  const ids = life.toolCallIds?.length
    ? life.role === 'tool'
      ? `, answers ${life.toolCallIds[0]}`
      : `, calls ${life.toolCallIds.join(', ')}`
    : '';
  return `message #${life.index} (${life.role}${ids})`;
}

/** The text `ctxkit explain` prints: the trace's extent, then the life of each message holding the string. */
export function explanationText(explanation: SessionExplanation, storedRefs?: ReadonlySet<string>): string {
  const lines: string[] = [];
  lines.push(`agent ${explanation.agentId} · session ${explanation.sessionId} · ${explanation.strategyId}`);
  const extent =
    explanation.calls === 0
      ? 'the trace holds no compose yet'
      : `the trace holds calls ${explanation.firstCall} ` +
        `to ${explanation.lastCall}` +
        `${explanation.evicted > 0 ? ` (${explanation.evicted} older calls left out to stay within its size)` : ''}`;
  lines.push(extent);
  const count = explanation.messages.length;
  lines.push(
    count === 0
      ? `no message holds "${explanation.find}"`
      : `"${explanation.find}" is in ${count} message${count === 1 ? '' : 's'}`,
  );
  for (const life of explanation.messages) {
    lines.push('');
    lines.push(messageHeading(life));
    if (life.calls.length === 0) {
      lines.push('  not in any traced compose yet');
      continue;
    }
    lines.push(
      life.seenBefore
        ? `  seen before call ${life.calls[0]!.call} (older calls left the trace)`
        : `  first seen at call ${life.firstSeen}`,
    );
    for (const span of life.spans) lines.push(`  ${spanState(span)} ${spanCalls(span)}`);
    const word = lastWord(life, storedRefs);
    if (word !== undefined) lines.push(`  ${word}`);
  }
  return lines.join('\n') + '\n';
}
