import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { mergeConfig, nestedConfig, readSweepGrid, sweepConfigurations } from './sweep-grid';

/** A schema with the cache settings of the standard strategies, and one nested key. */
const schema = {
  type: 'object',
  properties: {
    cutBackRatio: { type: 'number', default: 1 },
    keepFirstShare: { type: 'number', default: 0 },
    memoryShare: { type: 'number', default: 0.5 },
    recall: { type: 'object', properties: { share: { type: 'number', default: 0.9 } } },
  },
};

describe('sweep grid', () => {
  it('runs the defaults first, then every other combination, keepFirstShare only on a cut window', () => {
    const configurations = sweepConfigurations(
      's',
      { s: { cutBackRatio: [1, 0.5], keepFirstShare: [0, 0.3] } },
      schema,
    );
    expect(configurations.map((c) => c.label)).toEqual([
      's',
      's {"cutBackRatio":0.5,"keepFirstShare":0}',
      's {"cutBackRatio":0.5,"keepFirstShare":0.3}',
    ]);
    expect(configurations[0]).toEqual({ values: {}, config: {}, label: 's' });
    expect(configurations[2]!.config).toEqual({ cutBackRatio: 0.5, keepFirstShare: 0.3 });
  });

  it('sets nested keys given with dots, and leaves out the combination that repeats the defaults', () => {
    const configurations = sweepConfigurations('s', { s: { 'recall.share': [0.9, 0.5], memoryShare: [0.5] } }, schema);
    expect(configurations.map((c) => c.label)).toEqual(['s', 's {"recall.share":0.5,"memoryShare":0.5}']);
    expect(configurations[1]!.config).toEqual({ recall: { share: 0.5 }, memoryShare: 0.5 });
  });

  it('runs only the defaults of a strategy the grid does not name', () => {
    expect(sweepConfigurations('other', { s: { cutBackRatio: [0.5] } }, schema)).toEqual([
      { values: {}, config: {}, label: 'other' },
    ]);
  });

  it('rejects a key the strategy does not declare, naming those it does', () => {
    expect(() => sweepConfigurations('s', { s: { cutBack: [0.5] } }, schema)).toThrow(
      expect.objectContaining({
        code: 'CTXKIT_CONFIG_INVALID',
        fix: expect.stringContaining('cutBackRatio, keepFirstShare, memoryShare, recall'),
      }),
    );
    expect(() => sweepConfigurations('s', { s: { 'recall.size': [1] } }, schema)).toThrow(
      /"recall.size" is not a config key/,
    );
  });

  it('reads the bundled grid, whose keys every standard strategy declares', () => {
    const grid = readSweepGrid();
    const plugins = path.join(__dirname, '..', '..', '..', '..', 'plugins');
    for (const directory of fs.readdirSync(plugins)) {
      const manifest = JSON.parse(fs.readFileSync(path.join(plugins, directory, 'plugin.json'), 'utf8')) as {
        id: string;
        configSchema: Record<string, unknown>;
      };
      expect(grid[manifest.id]).toBeDefined();
      expect(sweepConfigurations(manifest.id, grid, manifest.configSchema).length).toBeGreaterThan(4);
    }
  });

  it('rejects a file that is not a grid, with the fix', () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'grid-')), 'grid.json');
    fs.writeFileSync(file, JSON.stringify({ s: { cutBackRatio: 0.5 } }));
    expect(() => readSweepGrid(file)).toThrow(
      expect.objectContaining({
        code: 'CTXKIT_CONFIG_INVALID',
        message: expect.stringContaining('"s" → "cutBackRatio" needs a non-empty array'),
      }),
    );
    fs.writeFileSync(file, '[');
    expect(() => readSweepGrid(file)).toThrow(/cannot read it/);
  });

  it('merges nested config keys, the later winning', () => {
    expect(
      mergeConfig(
        { recall: { scope: 'session', share: 0.9 }, cutBackRatio: 1 },
        nestedConfig({ 'recall.share': 0.5, cutBackRatio: 0.6 }),
      ),
    ).toEqual({ recall: { scope: 'session', share: 0.5 }, cutBackRatio: 0.6 });
  });
});
