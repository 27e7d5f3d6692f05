import fc from 'fast-check';

import { JsonKeyScreen } from './json-key-screen';
import { jsonKeyedNodes } from './json-keyed-nodes';

const WANTED = ['file', 'files', 'user_id', 'café', 'say "hi"'];
const OTHERS = ['path', 'limit', 'id', 'filesystem', 'User_id'];

/** JSON text with every character of every key written as a `\u` escape, as some writers do. */
function escapedKeysJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(escapedKeysJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const members = Object.entries(value).map(([key, child]) => {
      const escaped = [...key].map((char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
      return `"${escaped}":${escapedKeysJson(child)}`;
    });
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(value);
}

const jsonValue = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom(...WANTED, ...OTHERS)),
    fc.integer(),
    fc.boolean(),
    fc.dictionary(fc.constantFrom(...WANTED, ...OTHERS), tie('value'), { maxKeys: 3 }),
    fc.array(tie('value'), { maxLength: 3 }),
  ),
})).value;

describe('JsonKeyScreen', () => {
  const screen = new JsonKeyScreen(WANTED);

  describe('#mayHold', () => {
    it('is false for a JSON text without the keys, true with one of them or under a root key among them', () => {
      expect(screen.mayHold('{"path":"src/module-5.ts","limit":400}', 'read_file')).toBe(false);
      expect(screen.mayHold('{"filesystem":"ext4"}', null)).toBe(false);
      expect(screen.mayHold('{"files":["a.ts"]}', null)).toBe(true);
      expect(screen.mayHold('{"say \\"hi\\"":1}', null)).toBe(true);
      expect(screen.mayHold('["a.ts"]', 'files')).toBe(true);
      expect(screen.mayHold('{"fil\\u0065":"a.ts"}', null)).toBe(true);
    });

    it(
      'is true whenever the parsed text has a member under one of the keys, the keys written plainly or ' + 'escaped',
      () => {
        fc.assert(
          fc.property(
            jsonValue,
            fc.boolean(),
            fc.option(fc.constantFrom(...WANTED, ...OTHERS), { nil: null }),
            (value, escaped, rootKey) => {
              const text = escaped ? escapedKeysJson(value) : JSON.stringify(value);
              const wanted = jsonKeyedNodes(text, rootKey).some((node) => WANTED.includes(node.key));
              if (wanted) expect(screen.mayHold(text, rootKey)).toBe(true);
            },
          ),
        );
      },
    );
  });

  describe('#screen jsonKeyedNodes', () => {
    it('gives every node of a text that may hold a key, and none (without parsing) of one that cannot', () => {
      fc.assert(
        fc.property(jsonValue, fc.option(fc.constantFrom(...WANTED, ...OTHERS), { nil: null }), (value, rootKey) => {
          const text = JSON.stringify(value);
          const screened = jsonKeyedNodes(text, rootKey, screen);
          const all = jsonKeyedNodes(text, rootKey);
          expect(screened).toEqual(screen.mayHold(text.trim(), rootKey) ? all : []);
          if (screened.length === 0) expect(all.some((node) => WANTED.includes(node.key))).toBe(false);
        }),
      );
    });
  });
});
