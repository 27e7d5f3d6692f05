import os from 'node:os';

import {
  estimateKvCacheBytes,
  estimateModelBytes,
  MIN_CONTEXT_WINDOW,
  recommendContextWindow,
  STANDARD_CONTEXT_WINDOWS,
} from './recommend-context-window';

const GIB = 1024 ** 3;
/** An 8B model on a machine with 10 GiB, all of it free: too little for a 32K window. */
const EIGHT_B_IN_10_GIB = { modelParamsBillions: 8, totalMemoryBytes: 10 * GIB, freeMemoryBytes: 10 * GIB };

describe('estimateKvCacheBytes', () => {
  // The KV-cache memory table for q4 models (docs/10-small-context.md).
  it.each([
    [8, [1, 2, 4, 8]],
    [14, [1.5, 3, 6, 12]],
    [30, [3.5, 7, 14, 28]],
  ])('reproduces the KV-cache table row for a %iB model at 4K, 8K, 16K and 32K', (params, gib) => {
    expect([4096, 8192, 16384, 32768].map((tokens) => estimateKvCacheBytes(params, tokens) / GIB)).toEqual(gib);
  });

  it('interpolates between rows by parameter count', () => {
    expect(estimateKvCacheBytes(11, 4096) / GIB).toBeCloseTo(1.25, 6);
    expect(estimateKvCacheBytes(22, 4096) / GIB).toBeCloseTo(2.5, 6);
  });

  it('scales proportionally below the smallest and above the largest row', () => {
    expect(estimateKvCacheBytes(4, 4096) / GIB).toBeCloseTo(0.5, 6);
    expect(estimateKvCacheBytes(70, 4096) / GIB).toBeCloseTo((3.5 * 70) / 30, 6);
  });

  it('grows with the model size', () => {
    const sizes = [1, 3, 7, 8, 9, 13, 14, 20, 30, 32, 70];
    const bytes = sizes.map((params) => estimateKvCacheBytes(params, 8192));
    expect([...bytes].sort((a, b) => a - b)).toEqual(bytes);
  });
});

describe('estimateModelBytes', () => {
  it('takes about 4.5, 8.5 and 16 bits per weight for q4, q8 and f16', () => {
    expect(estimateModelBytes(8, 'q4')).toBe(4.5e9);
    expect(estimateModelBytes(8, 'q8')).toBe(8.5e9);
    expect(estimateModelBytes(8, 'f16')).toBe(16e9);
    expect(estimateModelBytes(8)).toBe(4.5e9);
  });
});

describe('recommendContextWindow', () => {
  describe('#presets', () => {
    // 14 GiB machine, 8B q4: budget 11.2 GiB, room for the cache ~6.5 GiB.
    const machine = { modelParamsBillions: 8, totalMemoryBytes: 14 * GIB, freeMemoryBytes: 13 * GIB };

    it('picks the largest standard window whose KV cache fits for balanced', () => {
      const result = recommendContextWindow(machine);
      expect(result).toMatchObject({ contextWindow: 16384, preset: 'balanced', shrunk: false, warnings: [] });
      expect(result.kvCacheBytes).toBe(4 * GIB);
      expect(result.modelBytes).toBe(4.5e9);
      expect(result.memoryBudgetBytes).toBe(Math.floor(14 * GIB * 0.8));
    });

    it('takes 50% of the automatic window for speed', () => {
      expect(recommendContextWindow({ ...machine, preset: 'speed' })).toMatchObject({
        contextWindow: 8192,
        preset: 'speed',
      });
    });

    it('takes 150% of the automatic window for quality when memory allows', () => {
      expect(recommendContextWindow({ ...machine, preset: 'quality' })).toMatchObject({
        contextWindow: 24576,
        preset: 'quality',
        warnings: [],
      });
    });

    it('caps quality by memory, rounded down to a multiple of 1024, and says so', () => {
      const result = recommendContextWindow({
        modelParamsBillions: 8,
        totalMemoryBytes: 12 * GIB,
        freeMemoryBytes: 12 * GIB,
        preset: 'quality',
      });
      expect(result.contextWindow).toBe(19456);
      expect(result.kvCacheBytes).toBeLessThanOrEqual(result.memoryBudgetBytes - result.modelBytes);
      expect(result.warnings).toEqual([expect.stringContaining('24576')]);
    });

    it('keeps the window within the model limit', () => {
      const result = recommendContextWindow({
        modelParamsBillions: 8,
        totalMemoryBytes: 256 * GIB,
        freeMemoryBytes: 250 * GIB,
        maxContextWindow: 32768,
        preset: 'quality',
      });
      expect(result.contextWindow).toBe(32768);
    });

    it('uses free memory when it is less than the total minus the reserve', () => {
      const result = recommendContextWindow({
        modelParamsBillions: 8,
        totalMemoryBytes: 64 * GIB,
        freeMemoryBytes: 6 * GIB,
      });
      expect(result.memoryBudgetBytes).toBe(6 * GIB);
      expect(result.contextWindow).toBe(4096);
    });
  });

  describe('#requested', () => {
    it('keeps a requested window that fits, without warnings', () => {
      expect(
        recommendContextWindow({
          modelParamsBillions: 8,
          totalMemoryBytes: 32 * GIB,
          freeMemoryBytes: 30 * GIB,
          requested: 16384,
        }),
      ).toMatchObject({ contextWindow: 16384, preset: 'custom', shrunk: false, warnings: [] });
    });

    it('shrinks a window that does not fit to the largest standard size that does, with the warning', () => {
      // The warning names both windows: "⚠ Not enough memory: the context window was reduced 32768 → 8192 …"
      const result = recommendContextWindow({ ...EIGHT_B_IN_10_GIB, requested: 32768 });
      expect(result).toMatchObject({ contextWindow: 8192, shrunk: true, preset: 'custom' });
      expect(result.warnings).toEqual([
        '⚠ Not enough memory: the context window was reduced 32768 → 8192. Work on large files will be done in ' +
          'smaller parts.',
      ]);
      expect(result.kvCacheBytes).toBe(2 * GIB);
    });

    it('never shrinks to a window larger than the request', () => {
      const result = recommendContextWindow({ ...EIGHT_B_IN_10_GIB, requested: 16000 });
      expect(result.contextWindow).toBe(8192);
      expect(STANDARD_CONTEXT_WINDOWS).toContain(result.contextWindow);
    });

    it('lowers a requested window above the model limit to that limit, with a warning', () => {
      const result = recommendContextWindow({
        modelParamsBillions: 8,
        totalMemoryBytes: 256 * GIB,
        freeMemoryBytes: 250 * GIB,
        requested: 65536,
        maxContextWindow: 32768,
      });
      expect(result).toMatchObject({ contextWindow: 32768, shrunk: false });
      expect(result.warnings).toEqual([expect.stringContaining('at most 32768 tokens')]);
    });

    it('keeps the requested window with a warning when forced', () => {
      const result = recommendContextWindow({ ...EIGHT_B_IN_10_GIB, requested: 32768, force: true });
      expect(result).toMatchObject({ contextWindow: 32768, shrunk: false });
      expect(result.kvCacheBytes).toBe(8 * GIB);
      expect(result.warnings).toEqual([expect.stringContaining('forced')]);
    });
  });

  describe('#memory shortage', () => {
    it('never throws when even the model does not fit: it returns the minimum window with warnings', () => {
      const result = recommendContextWindow({
        modelParamsBillions: 30,
        totalMemoryBytes: 8 * GIB,
        freeMemoryBytes: 7 * GIB,
        requested: 32768,
      });
      expect(result.contextWindow).toBe(MIN_CONTEXT_WINDOW);
      expect(result.shrunk).toBe(true);
      expect(result.warnings).toHaveLength(3);
      expect(result.warnings[0]).toContain('30B q4 model needs about');
    });

    it('never recommends less than the minimum window for speed', () => {
      const result = recommendContextWindow({
        modelParamsBillions: 8,
        totalMemoryBytes: 64 * GIB,
        freeMemoryBytes: 6 * GIB,
        preset: 'speed',
      });
      expect(result.contextWindow).toBe(MIN_CONTEXT_WINDOW);
    });
  });

  describe('#defaults', () => {
    it('reads machine memory from the operating system when none is given', () => {
      const result = recommendContextWindow({ modelParamsBillions: 8 });
      expect(result.memoryBudgetBytes).toBeLessThanOrEqual(os.totalmem());
      expect(result.contextWindow).toBeGreaterThanOrEqual(MIN_CONTEXT_WINDOW);
      expect(result.contextWindow).toBeLessThanOrEqual(131072);
      expect(result.preset).toBe('balanced');
    });

    it('rejects a non-positive model size or requested window with RangeError', () => {
      expect(() => recommendContextWindow({ modelParamsBillions: 0 })).toThrow(RangeError);
      expect(() => recommendContextWindow({ modelParamsBillions: 8, requested: -1 })).toThrow(RangeError);
    });
  });
});
