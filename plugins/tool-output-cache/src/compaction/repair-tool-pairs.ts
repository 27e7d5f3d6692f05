import type { AssistantMessage } from '@ctxkit/core';
import { groupToolCalls } from '@ctxkit/core/strategy-kit';

import type { ReductionLog } from '../view/reduction-log';
import type { ViewEntry } from '../view/view-entry';

/**
 * Makes a view provider-valid before it is fitted: a tool message that answers
 * no call is left out, and an assistant message whose calls lack results (a run that ended on a
 * `finish` call) is sent without those calls, or left out when nothing else remains. Both are
 * reported; the caller's history still holds them. With `keepTrailingCalls`, calls at the very end
 * that still wait for their results are left as they are, for the window selection to leave out
 * and report (so that the newest complete step of the turn, not the bare call, is what it keeps).
 */
export function repairToolPairs(
  entries: ReadonlyArray<ViewEntry>,
  log?: ReductionLog,
  options: { keepTrailingCalls?: boolean } = {},
): ViewEntry[] {
  const messages = entries.map((entry) => entry.message);
  const result: ViewEntry[] = [];
  const groups = groupToolCalls(messages);
  for (const [position, group] of groups.entries()) {
    if (options.keepTrailingCalls && position === groups.length - 1 && group.kind === 'incomplete-tool-exchange') {
      for (let index = group.start; index < group.end; index++) result.push(entries[index]!);
      continue;
    }
    if (group.kind === 'orphan-tool') {
      const entry = entries[group.start]!;
      if (entry.source !== null)
        log?.add(
          'dropped',
          { from: entry.source },
          { reason: 'tool result that answers no call (not sent)', recoverableFrom: 'history' },
        );
      continue;
    }
    if (group.kind === 'incomplete-tool-exchange') {
      const entry = entries[group.start]!;
      const assistant = entry.message as AssistantMessage;
      const missing = new Set(group.missingCallIds ?? []);
      const answered = (assistant.tool_calls ?? []).filter((call) => !missing.has(call.id));
      if (entry.source !== null) {
        log?.add(
          'dropped',
          { from: entry.source },
          { reason: 'tool call without a result (not sent)', recoverableFrom: 'history' },
        );
      }
      if (answered.length > 0) {
        result.push({ ...entry, message: { ...assistant, tool_calls: answered } });
      } else if (typeof assistant.content === 'string' && assistant.content.trim() !== '') {
        const { tool_calls: _calls, reasoning: _reasoning, ...rest } = assistant;
        result.push({ ...entry, message: { ...rest, content: assistant.content } });
      }
      for (let index = group.start + 1; index < group.end; index++) result.push(entries[index]!);
      continue;
    }
    for (let index = group.start; index < group.end; index++) result.push(entries[index]!);
  }
  return result;
}
