import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { cacheWritePrice, payloadInputCost, priceOf, readPriceTable } from './input-price';

describe('input prices', () => {
  it('reads the bundled table, whose default is one of its entries', () => {
    const table = readPriceTable();
    expect(priceOf(table)).toEqual(table.prices[table.default]);
    expect(priceOf(table, 'anthropic:claude-sonnet-4')).toEqual({
      input: 3,
      cachedInput: 0.3,
      cacheWrite: 3.75,
      cacheWrite1h: 6,
    });
  });

  it('bundles Anthropic prices as their multiples of input and OpenAI prices without a write surcharge', () => {
    const table = readPriceTable();
    for (const [key, price] of Object.entries(table.prices)) {
      if (key.startsWith('anthropic:')) {
        expect([
          price.cachedInput / price.input,
          price.cacheWrite! / price.input,
          price.cacheWrite1h! / price.input,
        ]).toEqual([expect.closeTo(0.1), expect.closeTo(1.25), expect.closeTo(2)]);
      } else {
        expect(cacheWritePrice(price, '5m')).toBe(price.input);
        expect(cacheWritePrice(price, '1h')).toBe(price.input);
        expect(price.cachedInput).toBeLessThan(price.input);
      }
    }
  });

  it(
    'prices the writes of a one-hour cache at its own price, falling back to the five-minute one, then to ' + 'input',
    () => {
      const anthropic = { input: 3, cachedInput: 0.3, cacheWrite: 3.75, cacheWrite1h: 6 };
      expect(cacheWritePrice(anthropic)).toBe(3.75);
      expect(cacheWritePrice(anthropic, '1h')).toBe(6);
      expect(cacheWritePrice({ input: 3, cachedInput: 0.3, cacheWrite: 3.75 }, '1h')).toBe(3.75);
      expect(cacheWritePrice({ input: 2.5, cachedInput: 1.25 }, '1h')).toBe(2.5);
      // 1M tokens, 800k read from the cache: 0.8 × 0.3 read + 0.2 × 6 written for an hour.
      expect(payloadInputCost(anthropic, 1_000_000, 800_000, true, '1h')).toBeCloseTo(0.8 * 0.3 + 0.2 * 6);
      // OpenAI: cached input at its discount, the rest at the input price.
      expect(payloadInputCost({ input: 2.5, cachedInput: 1.25 }, 1_000_000, 800_000, true, '1h')).toBeCloseTo(
        0.8 * 1.25 + 0.2 * 2.5,
      );
      // A conversation's first call reads nothing and writes everything.
      expect(payloadInputCost(anthropic, 10_000, 0, true)).toBeCloseTo((10_000 * 3.75) / 1e6);
    },
  );

  it('prices the repeated prefix at the cache price and the rest at the write price', () => {
    const price = { input: 3, cachedInput: 0.3, cacheWrite: 3.75 };
    expect(payloadInputCost(price, 1_000_000, 800_000, false)).toBeCloseTo(3);
    expect(payloadInputCost(price, 1_000_000, 800_000, true)).toBeCloseTo(0.8 * 0.3 + 0.2 * 3.75);
    expect(payloadInputCost({ input: 2.5, cachedInput: 1.25 }, 1_000_000, 0, true)).toBeCloseTo(2.5);
  });

  it('names a missing entry and a malformed file with the fix', () => {
    expect(() => priceOf(readPriceTable(), 'acme:unknown')).toThrow(/No input price for "acme:unknown"/);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ctxkit-prices-'));
    const file = path.join(dir, 'prices.json');
    fs.writeFileSync(file, JSON.stringify({ default: 'x:y', prices: { 'x:y': { input: -1, cachedInput: 0 } } }));
    expect(() => readPriceTable(file)).toThrow(/"x:y" needs non-negative numbers/);
    fs.writeFileSync(
      file,
      JSON.stringify({ default: 'x:y', prices: { 'x:y': { input: 1, cachedInput: 0.1, cacheWrite1h: 'two' } } }),
    );
    expect(() => readPriceTable(file)).toThrow(/optionally "cacheWrite", "cacheWrite1h"/);
    fs.writeFileSync(file, '{ not json');
    expect(() => readPriceTable(file)).toThrow(/cannot read it/);
    fs.writeFileSync(file, JSON.stringify({ default: 'a:b', prices: {} }));
    expect(() => readPriceTable(file)).toThrow(/not a key of "prices"/);
  });
});
