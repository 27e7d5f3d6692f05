import { HeuristicTokenCounter } from '@ctxkit/core/strategy-kit';

import { renderOutlineView } from './outline-view';
import { outlineSource } from './source-outline';

const goFile = [
  'package main',
  '',
  'import (',
  '\t"fmt"',
  ')',
  '',
  'func main() {',
  ...Array.from({ length: 60 }, (_, i) => `\tfmt.Println(${i})`),
  '}',
  '',
  'func handleRequest(w http.ResponseWriter) {',
  ...Array.from({ length: 100 }, (_, i) => `\tw.Write(${i})`),
  '}',
  '',
  'type Server struct {',
  '\tport int',
  '}',
].join('\n');

describe('outlineSource', () => {
  it('lists top-level declarations with their line ranges', () => {
    const outline = outlineSource(goFile, 'Go');
    expect(outline.lineCount).toBe(goFile.split('\n').length);
    expect(outline.entries.map((e) => [e.kind, e.name, e.startLine])).toEqual([
      ['import', 'import', 3],
      ['func', 'main', 7],
      ['func', 'handleRequest', 70],
      ['type', 'Server', 173],
    ]);
    expect(outline.entries[1]!.endLine).toBe(69);
    expect(outline.entries[3]!.endLine).toBe(outline.lineCount);
  });

  it('gives plain text only its line count', () => {
    expect(outlineSource('a\nb\nc', 'text')).toEqual({ language: 'text', lineCount: 3, entries: [] });
  });
});

describe('renderOutlineView', () => {
  const counter = new HeuristicTokenCounter('test');

  it('shows the line count, the structure, head and tail lines and the offset/limit invitation within budget', () => {
    const view = renderOutlineView(goFile, { path: 'cmd/main.go', maxTokens: 400, counter });
    expect(view.text).toContain('File main.go has 175 lines (Go).');
    expect(view.text).toContain('func handleRequest');
    expect(view.text).toContain('offset and limit');
    expect(view.text).toMatch(/Lines 1-\d+:/);
    expect(counter.count(view.text)).toBeLessThanOrEqual(400);
    expect(view.shownRanges[0]![0]).toBe(1);
    expect(view.shownRanges[view.shownRanges.length - 1]![1]).toBe(175);
  });

  it('drops the structure, then the lines, before exceeding a tiny budget', () => {
    const view = renderOutlineView(goFile, { path: 'main.go', maxTokens: 20, counter });
    expect(counter.count(view.text)).toBeLessThanOrEqual(20);
  });
});
