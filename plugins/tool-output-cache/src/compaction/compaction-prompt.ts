import type { UserMessage } from '@ctxkit/core';

import type { CompactionConfig } from './compaction-config';

/**
 * The default retain instructions (used when `retainPrompt` is `null`): list what must survive
 * verbatim, answered in `<retain>` tags.
 */
export const DEFAULT_RETAIN_PROMPT = [
  'Before the summary, list inside <retain></retain> tags the facts that must survive word for word:',
  'identifiers, file paths, names, numbers, user constraints, decisions, and the ref ids of cached tool outputs',
  '(ref=...) that may need to be expanded again with tool_output_cache.',
].join('\n');

function bullets(directives: readonly string[]): string {
  return directives
    .map((directive) => directive.trim())
    .filter((directive) => directive !== '')
    .map((directive) => `- ${directive}`)
    .join('\n');
}

/**
 * The interrupt message appended for the summary call: the retain
 * instructions (`retainPrompt`, else the default, plus `retainDirectives` as bullets) and
 * the summary prompt (plus `summaryDirectives` as bullets). It is a user message and never
 * stays in the history.
 */
export function buildCompactionInterrupt(
  config: Pick<CompactionConfig, 'summaryPrompt' | 'summaryDirectives' | 'retainPrompt' | 'retainDirectives'>,
  focus?: string,
): UserMessage {
  const retainDirectives = bullets(config.retainDirectives);
  const summaryDirectives = bullets(config.summaryDirectives);
  const sections = [
    'The conversation above is about to be compacted: it will be replaced by what you write now. Do not call tools.',
    (config.retainPrompt ?? DEFAULT_RETAIN_PROMPT) + (retainDirectives ? `\n${retainDirectives}` : ''),
    config.summaryPrompt + (summaryDirectives ? `\nAlso:\n${summaryDirectives}` : ''),
  ];
  if (focus && focus.trim() !== '') sections.push(`Focus of this compaction: ${focus.trim()}`);
  sections.push('Answer with the <retain></retain> block first, then the <summary></summary> block.');
  return { role: 'user', content: sections.join('\n\n') };
}
