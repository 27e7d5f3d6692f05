import * as fs from 'node:fs';
import * as path from 'node:path';

describe('docs/04-events.md', () => {
  const doc = fs.readFileSync(path.join(__dirname, '../../../../docs/04-events.md'), 'utf8');
  const source = fs.readFileSync(path.join(__dirname, 'ctxkit-events.ts'), 'utf8');
  const names = [...source.matchAll(/^ {2}'([a-z-]+)': CtxkitEventBase/gm)].map((match) => match[1]!);

  it('finds the event names in the typed map', () => {
    expect(names.length).toBeGreaterThan(10);
  });

  it('documents every event of the typed map in the table', () => {
    for (const name of names) expect(doc).toContain(`| \`${name}\` |`);
  });
});
