import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { InvalidArgumentError } from 'commander';

import { existingDirectory, existingFile } from './path-options';

describe('existingFile and existingDirectory', () => {
  let dir: string;
  let file: string;

  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ctxkit-path-options-'));
    file = path.join(dir, 'transcript.jsonl');
    fs.writeFileSync(file, '{}\n');
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('return the value when it names what they want', () => {
    expect(existingFile(file)).toBe(file);
    expect(existingDirectory(dir)).toBe(dir);
  });

  it('refuse a missing path, saying what to pass', () => {
    const missing = path.join(dir, 'missing');
    expect(() => existingFile(missing)).toThrow(
      new InvalidArgumentError(`there is no file at ${missing}: pass the path of an existing file.`),
    );
    expect(() => existingDirectory(missing)).toThrow(
      new InvalidArgumentError(`there is no directory at ${missing}: pass the path of an existing directory.`),
    );
  });

  it('refuse a path of the other kind', () => {
    expect(() => existingFile(dir)).toThrow(`${dir} is not a file: pass the path of an existing file.`);
    expect(() => existingDirectory(file)).toThrow(
      `${file} is not a directory: pass the path of an existing directory.`,
    );
  });
});
