import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { SUMMARIZING_AGENT_MANIFEST } from '../__fixtures__/summarizing-agent-manifest';
import { validateManifest } from './validate-manifest';

const goodPlugin = {
  id: 'acme-window-strategy',
  name: 'Acme window',
  version: '1.2.3-beta.1',
  kind: 'context-strategy',
  entry: './dist/index.js',
  configSchema: { type: 'object', properties: { keep: { type: 'integer', default: 4 } }, additionalProperties: false },
  engines: { ctxkit: '^0.1.0' },
};

describe('validateManifest', () => {
  describe('agent manifests', () => {
    it('accepts the README example manifest unchanged', () => {
      const result = validateManifest(SUMMARIZING_AGENT_MANIFEST);
      expect(result).toMatchObject({ valid: true, kind: 'agent', errors: [] });
    });

    it('accepts an agent without contextStrategy, with small-context fields and unknown top-level keys', () => {
      const result = validateManifest({
        id: 'coder',
        model: 'gpt-4o',
        systemPrompt: 'You write code.',
        compactSystemPrompt: 'Code.',
        essentialTools: ['read_file', 'bash'],
        smallContextThreshold: 16384,
        tools: [{ name: 'bash' }],
        llm: { baseUrl: 'http://localhost:11434/v1' },
      });
      expect(result.valid).toBe(true);
    });

    it('reports a missing id with its pointer and what was expected', () => {
      const result = validateManifest({ contextStrategy: { type: 'plugin', pluginId: 'std-sliding-window-strategy' } });
      expect(result.valid).toBe(false);
      expect(result.errors).toEqual([
        {
          file: '<inline>',
          pointer: '/id',
          message: 'required property "id" is missing',
          expected: '"id" of type string',
        },
      ]);
    });

    it('rejects an id with a slash, naming the allowed form', () => {
      const result = validateManifest({ id: 'team/agent' });
      expect(result.errors[0]).toMatchObject({
        pointer: '/id',
        expected: expect.stringContaining('lowercase letters and digits'),
      });
    });

    it('reports every problem of a bad contextStrategy at once', () => {
      const result = validateManifest({
        id: 'x',
        contextStrategy: { type: 'class', pluginId: 'Std/../x', config: [], extra: 1 },
      });
      const pointers = result.errors.map((issue) => issue.pointer).sort();
      expect(pointers).toEqual([
        '/contextStrategy/config',
        '/contextStrategy/extra',
        '/contextStrategy/pluginId',
        '/contextStrategy/type',
      ]);
      expect(result.errors.find((issue) => issue.pointer === '/contextStrategy/type')).toMatchObject({
        expected: '"plugin"',
      });
      expect(result.errors.find((issue) => issue.pointer === '/contextStrategy/config')).toMatchObject({
        expected: 'type object',
      });
    });

    it('accepts declared pins, the pin tool and a pin share', () => {
      const result = validateManifest({
        id: 'coder',
        pins: [
          { message: 'first-user', label: 'task' },
          { message: 'first' },
          { message: 3 },
          { text: 'Never delete files.', label: 'rule' },
        ],
        pinTool: true,
        pinShare: 0.4,
      });
      expect(result).toMatchObject({ valid: true, errors: [] });
    });

    it('reports each bad declared pin at its own pointer, one issue each', () => {
      const result = validateManifest({
        id: 'coder',
        pins: [
          { message: 'last' },
          { message: -1 },
          { text: '' },
          { label: 'orphan' },
          { message: 0, text: 'both' },
          { text: 'x', label: '' },
        ],
        pinTool: 'yes',
        pinShare: 0,
      });
      expect(result.errors.map((issue) => issue.pointer)).toEqual([
        '/pins/0/message',
        '/pins/1/message',
        '/pins/2/text',
        '/pins/3/text',
        '/pins/4/text',
        '/pins/5/label',
        '/pinTool',
        '/pinShare',
      ]);
      expect(result.errors[0]).toMatchObject({ expected: 'one of: "first-user", "first"' });
      expect(result.errors[1]).toMatchObject({ expected: 'minimum 0' });
      expect(result.errors[3]).toMatchObject({
        message: 'required property "text" is missing',
        expected: '"text" of type string',
      });
    });

    it('rejects a non-object with one issue at the root', () => {
      expect(validateManifest([1, 2] as unknown).errors).toEqual([
        {
          file: '<inline>',
          pointer: '',
          message: 'a manifest must be a JSON object, got array',
          expected: 'type object',
        },
      ]);
    });
  });

  describe('plugin manifests', () => {
    it('accepts a complete plugin manifest', () => {
      expect(validateManifest(goodPlugin)).toMatchObject({ valid: true, kind: 'plugin' });
    });

    it('rejects ".." in entry, an absolute entry and a backslash', () => {
      for (const entry of ['../outside.js', 'dist/../../x.js', '/etc/passwd', 'dist\\index.js', '..']) {
        const result = validateManifest({ ...goodPlugin, entry });
        expect(result.errors).toEqual([
          expect.objectContaining({
            pointer: '/entry',
            expected: expect.stringContaining('relative path inside the plugin directory'),
          }),
        ]);
      }
    });

    it('rejects a wrong kind, a bad version and an unknown property', () => {
      const result = validateManifest({ ...goodPlugin, kind: 'theme', version: '1.0', entyr: 'x' });
      expect(result.errors.map((issue) => issue.pointer).sort()).toEqual(['/entyr', '/kind', '/version']);
      expect(result.errors.find((issue) => issue.pointer === '/entyr')?.expected).toContain('entry');
    });

    it('reports a configSchema that is not valid JSON Schema', () => {
      const result = validateManifest({
        ...goodPlugin,
        configSchema: { type: 'objekt', properties: { a: { minimum: 'ten' } } },
      });
      expect(result.valid).toBe(false);
      expect(result.errors).toEqual([
        expect.objectContaining({ pointer: '/configSchema', message: expect.stringContaining('invalid JSON Schema') }),
      ]);
    });

    it('accepts a 2020-12 configSchema that names its dialect', () => {
      const configSchema = {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        dependentRequired: { a: ['b'] },
        properties: {},
      };
      expect(validateManifest({ ...goodPlugin, configSchema }).valid).toBe(true);
    });
  });

  describe('files', () => {
    let dir: string;
    beforeEach(() => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ctxkit-manifest-'));
    });
    afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

    it('reads a path, and a directory as its plugin.json, naming the file in every issue', () => {
      fs.writeFileSync(path.join(dir, 'plugin.json'), JSON.stringify({ id: 'Bad Id' }));
      const result = validateManifest(dir);
      expect(result.file).toBe(path.join(dir, 'plugin.json'));
      expect(result.errors[0]).toMatchObject({ file: result.file, pointer: '/id' });
    });

    it('reports a missing file and invalid JSON without throwing', () => {
      expect(validateManifest(path.join(dir, 'nope.json')).errors[0]).toMatchObject({
        pointer: '',
        message: 'file not found',
      });
      fs.writeFileSync(path.join(dir, 'broken.json'), '{"id": ');
      expect(validateManifest(path.join(dir, 'broken.json')).errors[0]!.message).toContain('not valid JSON');
    });
  });
});
