import * as entry from './index';

describe('the plugin entry', () => {
  it('exports only the factory at runtime (the config type besides it)', () => {
    expect(Object.keys(entry).sort()).toEqual(['createStrategy']);
  });
});
