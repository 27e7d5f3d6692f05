function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}

/**
 * The shape of an example value as an anchored regular expression, for the offline extractor's
 * `examples` rule. Runs of upper-case letters, lower-case letters and digits become character
 * classes; any other character stays literal. Codes without lower-case letters keep their run
 * lengths (`"HAT123"` → `^[A-Z]{3}[0-9]{3}$`, `"2024-05-20"` → `^[0-9]{4}-[0-9]{2}-[0-9]{2}$`);
 * word-like identifiers do not (`"mia_li_3668"` → `^[a-z]+_[a-z]+_[0-9]+$`, `"Mia"` →
 * `^[A-Z][a-z]+$`). Returns `null` for an empty example or one with white space only.
 */
export function shapeRegex(example: string): RegExp | null {
  if (example.trim().length === 0) return null;
  const fixed = !/[a-z]/.test(example);
  const runs = example.match(/[A-Z]+|[a-z]+|[0-9]+|[^A-Za-z0-9]/g) ?? [];
  let source = '';
  for (let i = 0; i < runs.length; i++) {
    const run = runs[i]!;
    const next = runs[i + 1];
    let cls: string | null = null;
    if (/^[A-Z]+$/.test(run)) cls = '[A-Z]';
    else if (/^[a-z]+$/.test(run)) cls = '[a-z]';
    else if (/^[0-9]+$/.test(run)) cls = '[0-9]';
    if (cls === null) {
      source += /\s/.test(run) ? '\\s+' : escapeRegex(run);
      continue;
    }
    if (fixed) {
      source += run.length === 1 ? cls : `${cls}{${run.length}}`;
    } else if (cls === '[A-Z]' && run.length === 1 && next !== undefined && /^[a-z]+$/.test(next)) {
      // A capitalised word: one capital, then the lower-case run (handled by the next iteration).
      source += '[A-Z]';
    } else {
      source += `${cls}+`;
    }
  }
  return new RegExp(`^${source}$`);
}
