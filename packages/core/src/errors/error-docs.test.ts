import * as fs from 'node:fs';
import * as path from 'node:path';

import { ErrorCodes } from './error-codes';

describe('docs/05-errors.md', () => {
  const doc = fs.readFileSync(path.join(__dirname, '../../../../docs/05-errors.md'), 'utf8');

  it.each(Object.values(ErrorCodes))('documents %s in its own section', (code) => {
    expect(doc).toContain(`\n## ${code}\n`);
  });

  it('documents no code that does not exist', () => {
    const documented = [...doc.matchAll(/^## (CTXKIT_[A-Z_]+)$/gm)].map((match) => match[1]);
    expect(documented.sort()).toEqual(Object.values(ErrorCodes).sort());
  });
});
