/** Outcome of reading a JSON object out of a model's answer. */
export type ParsedAnswer = { ok: true; value: unknown } | { ok: false; error: string };

/** The end (exclusive) of the balanced `{...}` starting at `start`, honouring JSON strings. */
function balancedEnd(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const char = text[i];
    if (inString) {
      if (char === '\\') i++;
      else if (char === '"') inString = false;
      continue;
    }
    if (char === '"') inString = true;
    else if (char === '{') depth++;
    else if (char === '}') {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return -1;
}

/**
 * Reads the JSON object of an extraction answer, tolerating what models wrap around it: code fences
 * (```json ... ```), prose before or after, a BOM. The first fenced block that parses wins; else the
 * first balanced `{...}` that parses. Never throws.
 */
export function parseJsonAnswer(answer: string): ParsedAnswer {
  const text = answer.replace(/^\uFEFF/, '').trim();
  if (text.length === 0) return { ok: false, error: 'the answer is empty' };
  const candidates: string[] = [text];
  for (const match of text.matchAll(/```[a-zA-Z0-9_-]*[ \t]*\r?\n?([\s\S]*?)```/g)) {
    if (match[1] !== undefined) candidates.push(match[1].trim());
  }
  for (const candidate of candidates) {
    try {
      const value: unknown = JSON.parse(candidate);
      if (value !== null && typeof value === 'object' && !Array.isArray(value)) return { ok: true, value };
    } catch {
      // Not JSON as a whole: look for an object inside below.
    }
  }
  for (let start = text.indexOf('{'); start !== -1; start = text.indexOf('{', start + 1)) {
    const end = balancedEnd(text, start);
    if (end === -1) break;
    try {
      const value: unknown = JSON.parse(text.slice(start, end));
      if (value !== null && typeof value === 'object' && !Array.isArray(value)) return { ok: true, value };
    } catch {
      // Try the next opening brace.
    }
  }
  return { ok: false, error: 'no JSON object found in the answer' };
}
