/** Languages whose top-level declarations the outline recognises. */
export type SourceLanguage =
  | 'Go'
  | 'TypeScript'
  | 'JavaScript'
  | 'Python'
  | 'C'
  | 'C++'
  | 'Rust'
  | 'Java'
  | 'Pony'
  | 'Ruby'
  | 'Shell'
  | 'Markdown'
  | 'text';

const BY_EXTENSION: Record<string, SourceLanguage> = {
  go: 'Go',
  ts: 'TypeScript',
  tsx: 'TypeScript',
  mts: 'TypeScript',
  cts: 'TypeScript',
  js: 'JavaScript',
  jsx: 'JavaScript',
  mjs: 'JavaScript',
  cjs: 'JavaScript',
  py: 'Python',
  c: 'C',
  h: 'C',
  cc: 'C++',
  cpp: 'C++',
  cxx: 'C++',
  hpp: 'C++',
  rs: 'Rust',
  java: 'Java',
  pony: 'Pony',
  rb: 'Ruby',
  sh: 'Shell',
  bash: 'Shell',
  md: 'Markdown',
};

/** The language of a file by its extension; `text` when unknown. */
export function languageOfPath(path: string | undefined): SourceLanguage {
  if (!path) return 'text';
  const match = /\.([A-Za-z0-9]+)$/.exec(path.trim());
  return (match && BY_EXTENSION[match[1]!.toLowerCase()]) || 'text';
}

/** The base name of a path (`src/main.go` → `main.go`). */
export function baseName(path: string): string {
  const parts = path.split(/[\\/]/);
  return parts[parts.length - 1] || path;
}
