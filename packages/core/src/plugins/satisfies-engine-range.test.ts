import { satisfiesEngineRange } from './satisfies-engine-range';

describe('satisfiesEngineRange', () => {
  it.each([
    ['0.1.0', '^0.1.0', true],
    ['0.1.5', '^0.1.0', true],
    ['0.2.0', '^0.1.0', false],
    ['1.4.0', '^1.2.3', true],
    ['2.0.0', '^1.2.3', false],
    ['0.0.3', '^0.0.3', true],
    ['0.0.4', '^0.0.3', false],
    ['1.2.9', '~1.2.3', true],
    ['1.3.0', '~1.2.3', false],
    ['1.3.0', '>=1.0.0 <2.0.0', true],
    ['2.0.0', '>=1.0.0 <2.0.0', false],
    ['3.1.0', '^1.0.0 || ^3.0.0', true],
    ['0.1.0', '*', true],
    ['0.1.0', '0.x', true],
    ['1.0.0', '0.x', false],
    ['0.1.0-beta.1', '^0.1.0', true],
  ])('version %s against %s is %s', (version, range, expected) => {
    expect(satisfiesEngineRange(version, range)).toBe(expected);
  });

  it('returns undefined for a range it cannot read', () => {
    expect(satisfiesEngineRange('1.0.0', 'latest')).toBeUndefined();
  });
});
