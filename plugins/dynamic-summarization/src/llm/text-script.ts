import { type ChatMessage } from '@ctxkit/core';
import { contentText } from '@ctxkit/core/strategy-kit';

/** The writing system a text is mostly written in. */
export type TextScript = 'latin' | 'japanese' | 'chinese' | 'korean' | 'cyrillic' | 'arabic' | 'other';

const SCRIPTS: ReadonlyArray<{ script: Exclude<TextScript, 'other'>; pattern: RegExp }> = [
  { script: 'japanese', pattern: /[\u3040-\u30ff]/gu },
  { script: 'korean', pattern: /[\uac00-\ud7af]/gu },
  { script: 'chinese', pattern: /\p{Script=Han}/gu },
  { script: 'cyrillic', pattern: /\p{Script=Cyrillic}/gu },
  { script: 'arabic', pattern: /\p{Script=Arabic}/gu },
  { script: 'latin', pattern: /\p{Script=Latin}/gu },
];

/**
 * The script most of the letters of `text` belong to, or `undefined` when it has fewer than 20
 * letters. Kana make a text Japanese even among kanji (a Japanese text mixes both).
 */
export function dominantScript(text: string): TextScript | undefined {
  const counts = new Map<TextScript, number>();
  let letters = 0;
  for (const { script, pattern } of SCRIPTS) {
    const found = text.match(pattern)?.length ?? 0;
    counts.set(script, found);
    letters += found;
  }
  if (letters < 20) return undefined;
  const kana = counts.get('japanese') ?? 0;
  // Japanese text is kana plus kanji: count its kanji as Japanese.
  if (kana > 0 && kana >= letters * 0.1) counts.set('japanese', kana + (counts.get('chinese') ?? 0));
  let best: TextScript = 'other';
  let bestCount = 0;
  for (const [script, count] of counts) if (count > bestCount) [best, bestCount] = [script, count];
  return best;
}

/** The script the user writes the folded turns in (what the summary should be written in). */
export function conversationScript(messages: ReadonlyArray<Readonly<ChatMessage>>): TextScript | undefined {
  const userText = messages
    .filter((message) => message.role === 'user')
    .map((message) => contentText(message.content))
    .join('\n');
  return dominantScript(userText);
}
