import type { SourceLanguage } from '@ctxkit/core/strategy-kit';

/** A top-level declaration and the lines it spans (1-based, inclusive). */
export interface OutlineEntry {
  name: string;
  kind: string;
  startLine: number;
  endLine: number;
}

/** The structure of a text: line count and top-level declarations. */
export interface SourceOutline {
  language: SourceLanguage;
  lineCount: number;
  entries: OutlineEntry[];
}

interface Rule {
  kind: string;
  pattern: RegExp;
}

const RULES: Partial<Record<SourceLanguage, Rule[]>> = {
  Go: [
    { kind: 'import', pattern: /^import\b/ },
    { kind: 'func', pattern: /^func\s+(?:\([^)]*\)\s*)?([A-Za-z_]\w*)/ },
    { kind: 'type', pattern: /^type\s+([A-Za-z_]\w*)/ },
    { kind: 'var', pattern: /^(?:var|const)\s+\(?\s*([A-Za-z_]\w*)?/ },
  ],
  TypeScript: [
    { kind: 'import', pattern: /^import\b/ },
    { kind: 'function', pattern: /^(?:export\s+)?(?:default\s+)?(?:async\s+)?function\*?\s+([A-Za-z_$][\w$]*)/ },
    { kind: 'class', pattern: /^(?:export\s+)?(?:default\s+)?(?:abstract\s+)?class\s+([A-Za-z_$][\w$]*)/ },
    { kind: 'interface', pattern: /^(?:export\s+)?interface\s+([A-Za-z_$][\w$]*)/ },
    { kind: 'type', pattern: /^(?:export\s+)?type\s+([A-Za-z_$][\w$]*)/ },
    { kind: 'enum', pattern: /^(?:export\s+)?(?:const\s+)?enum\s+([A-Za-z_$][\w$]*)/ },
    { kind: 'const', pattern: /^(?:export\s+)?(?:const|let|var)\s+([A-Za-z_$][\w$]*)/ },
  ],
  Python: [
    { kind: 'import', pattern: /^(?:import|from)\s/ },
    { kind: 'def', pattern: /^(?:async\s+)?def\s+([A-Za-z_]\w*)/ },
    { kind: 'class', pattern: /^class\s+([A-Za-z_]\w*)/ },
  ],
  C: [
    { kind: 'include', pattern: /^#include\b/ },
    { kind: 'define', pattern: /^#define\s+([A-Za-z_]\w*)/ },
    { kind: 'struct', pattern: /^(?:typedef\s+)?(?:struct|union|enum)\s+([A-Za-z_]\w*)?\s*\{?\s*$/ },
    { kind: 'function', pattern: /^(?!\s)(?!return\b)[A-Za-z_][\w\s*]*?\b([A-Za-z_]\w*)\s*\([^;]*\)?\s*\{?\s*$/ },
  ],
  Rust: [
    { kind: 'use', pattern: /^use\s/ },
    { kind: 'fn', pattern: /^(?:pub(?:\([^)]*\))?\s+)?(?:async\s+)?(?:unsafe\s+)?fn\s+([A-Za-z_]\w*)/ },
    { kind: 'struct', pattern: /^(?:pub(?:\([^)]*\))?\s+)?struct\s+([A-Za-z_]\w*)/ },
    { kind: 'enum', pattern: /^(?:pub(?:\([^)]*\))?\s+)?enum\s+([A-Za-z_]\w*)/ },
    { kind: 'impl', pattern: /^impl(?:<[^>]*>)?\s+([A-Za-z_][\w:<>, ]*)/ },
    { kind: 'trait', pattern: /^(?:pub(?:\([^)]*\))?\s+)?trait\s+([A-Za-z_]\w*)/ },
    { kind: 'mod', pattern: /^(?:pub\s+)?mod\s+([A-Za-z_]\w*)/ },
  ],
  Java: [
    { kind: 'import', pattern: /^import\s/ },
    { kind: 'class', pattern: /^(?:public\s+|final\s+|abstract\s+)*(?:class|interface|enum|record)\s+([A-Za-z_]\w*)/ },
  ],
  Pony: [
    { kind: 'use', pattern: /^use\s/ },
    { kind: 'type', pattern: /^(?:class|actor|primitive|trait|interface|struct|type)\s+(?:\w+\s+)?([A-Za-z_]\w*)/ },
    { kind: 'fun', pattern: /^\s{2}(?:fun|be|new)\s+(?:\w+\s+)?([A-Za-z_]\w*)/ },
  ],
  Ruby: [
    { kind: 'class', pattern: /^(?:class|module)\s+([A-Za-z_][\w:]*)/ },
    { kind: 'def', pattern: /^def\s+([A-Za-z_][\w?!.]*)/ },
  ],
  Shell: [{ kind: 'function', pattern: /^(?:function\s+)?([A-Za-z_][\w-]*)\s*\(\)\s*\{?/ }],
  Markdown: [{ kind: 'heading', pattern: /^#{1,3}\s+(.+)$/ }],
};
RULES.JavaScript = RULES.TypeScript;
RULES['C++'] = [...(RULES.C ?? []), { kind: 'class', pattern: /^(?:class|namespace)\s+([A-Za-z_]\w*)/ }];

/** Scans lines without splitting the whole text into an array. */
function* lines(text: string): Generator<string> {
  let start = 0;
  while (start <= text.length) {
    const end = text.indexOf('\n', start);
    if (end === -1) {
      if (start < text.length) yield text.slice(start);
      return;
    }
    yield text.slice(start, end);
    start = end + 1;
  }
}

/**
 * The outline of a text: its line count and, for source code, the top-level
 * declarations with their line ranges. Consecutive imports fold into one entry. Other texts get
 * only their line count. Runs in one pass, linear in the text.
 */
export function outlineSource(text: string, language: SourceLanguage, maxEntries = 200): SourceOutline {
  const rules = RULES[language] ?? [];
  const entries: OutlineEntry[] = [];
  let lineCount = 0;
  for (const line of lines(text)) {
    lineCount++;
    if (rules.length === 0 || line.length === 0 || line.length > 400) continue;
    for (const rule of rules) {
      const match = rule.pattern.exec(line);
      if (!match) continue;
      const previous = entries[entries.length - 1];
      const name = (match[1] ?? '').trim() || rule.kind;
      if (
        previous &&
        previous.kind === rule.kind &&
        (rule.kind === 'import' || rule.kind === 'include' || rule.kind === 'use')
      ) {
        previous.endLine = lineCount;
      } else if (entries.length < maxEntries) {
        if (previous) previous.endLine = Math.max(previous.startLine, lineCount - 1);
        entries.push({ name, kind: rule.kind, startLine: lineCount, endLine: lineCount });
      }
      break;
    }
  }
  const last = entries[entries.length - 1];
  if (last && last.kind !== 'import' && last.kind !== 'include' && last.kind !== 'use') last.endLine = lineCount;
  return { language, lineCount, entries };
}
