import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { ConfigSchemaError } from '../errors/config-schema-error';
import { ConfigValidationError } from '../errors/config-validation-error';
import { DuplicatePluginError } from '../errors/duplicate-plugin-error';
import { ManifestValidationError } from '../errors/manifest-validation-error';
import { PluginLoadError } from '../errors/plugin-load-error';
import { StrategyError } from '../errors/strategy-error';
import { UnsafePathError } from '../errors/unsafe-path-error';
import { discoverPlugins } from './discover-plugins';
import { loadPluginFactory, validatePluginConfig } from './load-plugin';

const STRATEGY_JS =
  `exports.createStrategy = (config, context) => ({
  async composePayload(systemPrompt, history, tools) { return { messages: [{ role: 'system', content: systemPrompt ` +
  `}, ...history], tools, stats: {} }; },
  async onTurnComplete() {},
  config,
});
`;

function writePlugin(
  dir: string,
  manifest: Record<string, unknown>,
  files: Record<string, string> = { 'index.js': STRATEGY_JS },
): string {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(
    path.join(dir, 'plugin.json'),
    JSON.stringify({
      name: 'Test strategy',
      version: '1.0.0',
      kind: 'context-strategy',
      entry: './index.js',
      configSchema: { type: 'object' },
      ...manifest,
    }),
  );
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
  }
  return dir;
}

describe('discoverPlugins', () => {
  let tmp: string;
  beforeEach(() => {
    tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ctxkit-discover-')));
  });
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  describe('host plugin dirs', () => {
    it('finds a plugin dir and a dir of plugin dirs, sorted by id', () => {
      writePlugin(path.join(tmp, 'one'), { id: 'zeta-strategy' });
      writePlugin(path.join(tmp, 'many', 'a'), { id: 'alpha-strategy' });
      writePlugin(path.join(tmp, 'many', 'b'), { id: 'beta-strategy', description: 'B' });
      fs.mkdirSync(path.join(tmp, 'many', 'not-a-plugin'));
      const { plugins, problems } = discoverPlugins({
        pluginDirs: [path.join(tmp, 'one'), path.join(tmp, 'many')],
        discoverInstalled: false,
      });
      expect(plugins.map((plugin) => plugin.id)).toEqual(['alpha-strategy', 'beta-strategy', 'zeta-strategy']);
      expect(plugins[1]).toMatchObject({
        name: 'Test strategy',
        version: '1.0.0',
        description: 'B',
        source: `directory ${path.join(tmp, 'many', 'b')}`,
      });
      expect(plugins[0]!.entryPath).toBe(path.join(tmp, 'many', 'a', 'index.js'));
      expect(problems).toEqual([]);
    });

    it('counts the same directory reached twice once', () => {
      writePlugin(path.join(tmp, 'p'), { id: 'once-strategy' });
      fs.symlinkSync(path.join(tmp, 'p'), path.join(tmp, 'link'));
      const { plugins } = discoverPlugins({
        pluginDirs: [path.join(tmp, 'p'), path.join(tmp, 'link')],
        discoverInstalled: false,
      });
      expect(plugins).toHaveLength(1);
    });

    it('rejects two plugins with one id, naming both sources', () => {
      writePlugin(path.join(tmp, 'first'), { id: 'twin-strategy' });
      writePlugin(path.join(tmp, 'second'), { id: 'twin-strategy' });
      const run = () =>
        discoverPlugins({ pluginDirs: [path.join(tmp, 'first'), path.join(tmp, 'second')], discoverInstalled: false });
      expect(run).toThrow(DuplicatePluginError);
      expect(run).toThrow(`directory ${path.join(tmp, 'first')} and directory ${path.join(tmp, 'second')}`);
    });

    it('rejects an entry with ".." by schema, and a link leading outside by path check', () => {
      writePlugin(path.join(tmp, 'dots'), { id: 'dots-strategy', entry: '../outside.js' });
      expect(() => discoverPlugins({ pluginDirs: [path.join(tmp, 'dots')], discoverInstalled: false })).toThrow(
        ManifestValidationError,
      );

      fs.writeFileSync(path.join(tmp, 'outside.js'), STRATEGY_JS);
      writePlugin(path.join(tmp, 'linked'), { id: 'linked-strategy', entry: './entry.js' }, {});
      fs.symlinkSync(path.join(tmp, 'outside.js'), path.join(tmp, 'linked', 'entry.js'));
      expect(() => discoverPlugins({ pluginDirs: [path.join(tmp, 'linked')], discoverInstalled: false })).toThrow(
        UnsafePathError,
      );
    });

    it('rejects an invalid manifest with every issue, and a missing directory', () => {
      writePlugin(path.join(tmp, 'bad'), { id: 'Bad/Id', kind: 'theme', configSchema: { type: 'objekt' } });
      try {
        discoverPlugins({ pluginDirs: [path.join(tmp, 'bad')], discoverInstalled: false });
        throw new Error('expected a ManifestValidationError');
      } catch (error) {
        expect(error).toBeInstanceOf(ManifestValidationError);
        expect((error as ManifestValidationError).issues.map((issue) => issue.pointer).sort()).toEqual([
          '/configSchema',
          '/id',
          '/kind',
        ]);
        expect((error as ManifestValidationError).issues[0]!.file).toBe(path.join(tmp, 'bad', 'plugin.json'));
      }
      expect(() => discoverPlugins({ pluginDirs: [path.join(tmp, 'missing')], discoverInstalled: false })).toThrow(
        ManifestValidationError,
      );
    });
  });

  describe('installed packages', () => {
    function installPackage(
      name: string,
      manifest: Record<string, unknown> | undefined,
      pluginField = './plugin.json',
    ): string {
      const dir = path.join(tmp, 'app', 'node_modules', ...name.split('/'));
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(
        path.join(dir, 'package.json'),
        JSON.stringify({ name, ...(manifest ? { ctxkit: { plugin: pluginField } } : {}) }),
      );
      if (manifest) writePlugin(dir, manifest);
      return dir;
    }

    it('finds packages that declare "ctxkit": { "plugin" } (scoped too) and ignores the rest', () => {
      installPackage('@acme/strategy-x', { id: 'acme-x-strategy' });
      installPackage('plain-strategy-pkg', { id: 'plain-strategy' });
      installPackage('left-pad', undefined);
      const { plugins } = discoverPlugins({ searchFrom: [path.join(tmp, 'app', 'src')] });
      const mine = plugins.filter((plugin) => plugin.dir!.startsWith(tmp));
      expect(mine.map((plugin) => [plugin.id, plugin.source])).toEqual([
        ['acme-x-strategy', 'package @acme/strategy-x'],
        ['plain-strategy', 'package plain-strategy-pkg'],
      ]);
    });

    it('records a broken installed plugin as a problem instead of failing discovery', () => {
      installPackage('broken-pkg', { id: 'broken-strategy', version: 'one' });
      installPackage('escaping-pkg', { id: 'escaping-strategy' }, '../../outside/plugin.json');
      const { plugins, problems } = discoverPlugins({ searchFrom: [path.join(tmp, 'app')] });
      expect(plugins.some((plugin) => plugin.id === 'broken-strategy')).toBe(false);
      const mine = problems.filter(
        (problem) => problem.source === 'package broken-pkg' || problem.source === 'package escaping-pkg',
      );
      expect(mine.map((problem) => [problem.id, problem.error.code])).toEqual([
        ['broken-strategy', 'CTXKIT_MANIFEST_INVALID'],
        [undefined, 'CTXKIT_PLUGIN_PATH_UNSAFE'],
      ]);
    });
  });
});

describe('loadPluginFactory', () => {
  let tmp: string;
  beforeEach(() => {
    tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ctxkit-load-')));
  });
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  const discoverOne = (dir: string) => discoverPlugins({ pluginDirs: [dir], discoverInstalled: false }).plugins[0]!;

  it('does not import the entry during discovery, and imports it once on first use', () => {
    writePlugin(
      tmp,
      { id: 'lazy-strategy' },
      { 'index.js': `globalThis.__ctxkitLazyLoads = (globalThis.__ctxkitLazyLoads || 0) + 1;\n${STRATEGY_JS}` },
    );
    const record = discoverOne(tmp);
    expect((globalThis as Record<string, unknown>).__ctxkitLazyLoads).toBeUndefined();
    const factory = loadPluginFactory(record);
    expect(loadPluginFactory(record)).toBe(factory);
    expect((globalThis as Record<string, unknown>).__ctxkitLazyLoads).toBe(1);
  });

  it('loads createStrategy only: a default export is refused with what the entry exports and the fix', () => {
    writePlugin(
      path.join(tmp, 'f'),
      { id: 'default-fn-strategy' },
      { 'index.js': STRATEGY_JS.replace('exports.createStrategy', 'module.exports.default') },
    );
    expect(() => loadPluginFactory(discoverOne(path.join(tmp, 'f')))).toThrow(
      /does not export a createStrategy\(config, context\) function \(exports: default\)/,
    );
  });

  it('throws PluginLoadError for a missing entry and for an entry without a factory', () => {
    writePlugin(path.join(tmp, 'm'), { id: 'missing-strategy', entry: './dist/index.js' }, {});
    writePlugin(path.join(tmp, 'n'), { id: 'nothing-strategy' }, { 'index.js': 'exports.somethingElse = 1;' });
    expect(() => loadPluginFactory(discoverOne(path.join(tmp, 'm')))).toThrow(PluginLoadError);
    expect(() => loadPluginFactory(discoverOne(path.join(tmp, 'n')))).toThrow(
      /does not export a createStrategy\(config, context\) function \(exports: somethingElse\)/,
    );
  });

  it('wraps an entry that throws while loading as StrategyError with the method "import"', () => {
    writePlugin(tmp, { id: 'throwing-strategy' }, { 'index.js': 'throw new Error("boom at load");' });
    try {
      loadPluginFactory(discoverOne(tmp), 'agent-x');
      throw new Error('expected a StrategyError');
    } catch (error) {
      expect(error).toBeInstanceOf(StrategyError);
      expect((error as StrategyError).details).toEqual({
        pluginId: 'throwing-strategy',
        agentId: 'agent-x',
        method: 'import',
      });
      expect(((error as StrategyError).cause as Error).message).toBe('boom at load');
    }
  });
});

describe('validatePluginConfig', () => {
  const record = {
    id: 'cfg-strategy',
    name: 'cfg',
    version: '1.0.0',
    source: 'in-process',
    manifestPath: 'plugins/cfg/plugin.json',
    manifest: {
      id: 'cfg-strategy',
      name: 'cfg',
      version: '1.0.0',
      kind: 'context-strategy' as const,
      entry: './index.js',
      configSchema: {
        type: 'object',
        additionalProperties: false,
        properties: {
          threshold: { type: 'integer', minimum: 1, default: 10 },
          nested: { type: 'object', properties: { batch: { type: 'integer', default: 5 } }, default: {} },
          model: { type: 'string' },
        },
      },
    },
  };

  it("applies defaults to a copy and leaves the caller's frozen config untouched", () => {
    const config = Object.freeze({ model: 'gpt-4o-mini' });
    const result = validatePluginConfig(record, config, 'agent.json');
    expect(result).toEqual({ model: 'gpt-4o-mini', threshold: 10, nested: { batch: 5 } });
    expect(config).toEqual({ model: 'gpt-4o-mini' });
    expect(result).not.toBe(config);
  });

  it('reports every violation with the file, the JSON pointer and what was expected', () => {
    try {
      validatePluginConfig(record, { threshold: 0, colour: 'red' }, 'agents/a/plugin.json');
      throw new Error('expected a ConfigValidationError');
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigValidationError);
      expect((error as ConfigValidationError).issues).toEqual([
        expect.objectContaining({
          file: 'agents/a/plugin.json',
          pointer: '/contextStrategy/config/colour',
          expected: 'only the known properties: threshold, nested, model',
        }),
        expect.objectContaining({
          file: 'agents/a/plugin.json',
          pointer: '/contextStrategy/config/threshold',
          expected: 'minimum 1',
        }),
      ]);
    }
  });

  it('rejects a config that is not an object', () => {
    expect(() => validatePluginConfig(record, [1], 'a.json')).toThrow(ConfigValidationError);
  });

  it("throws ConfigSchemaError when the plugin's configSchema is broken", () => {
    const broken = {
      ...record,
      manifest: { ...record.manifest, configSchema: { type: 'object', properties: { a: { type: 'nonsense' } } } },
    };
    expect(() => validatePluginConfig(broken, {}, 'a.json')).toThrow(ConfigSchemaError);
  });
});

describe('discoverPlugins engines', () => {
  let tmp: string;
  beforeEach(() => {
    tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ctxkit-engines-')));
  });
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('accepts a plugin whose engines.ctxkit includes this core and rejects one that excludes it', () => {
    writePlugin(path.join(tmp, 'ok'), { id: 'fits-strategy', engines: { ctxkit: '>=0.0.1' } });
    expect(discoverPlugins({ pluginDirs: [path.join(tmp, 'ok')], discoverInstalled: false }).plugins).toHaveLength(1);
    writePlugin(path.join(tmp, 'future'), { id: 'future-strategy', engines: { ctxkit: '^99.0.0' } });
    expect(() => discoverPlugins({ pluginDirs: [path.join(tmp, 'future')], discoverInstalled: false })).toThrow(
      /engines\.ctxkit "\^99\.0\.0" does not include @ctxkit\/core/,
    );
  });
});
