import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { payloadInputCost, priceOf, readPriceTable } from './input-price';

describe('input prices', () => {
  it('reads the bundled table, whose default is one of its entries', () => {
    const table = readPriceTable();
    expect(priceOf(table)).toEqual(table.prices[table.default]);
    expect(priceOf(table, 'anthropic:claude-sonnet-4')).toEqual({ input: 3, cachedInput: 0.3, cacheWrite: 3.75 });
  });

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
    fs.writeFileSync(file, '{ not json');
    expect(() => readPriceTable(file)).toThrow(/cannot read it/);
    fs.writeFileSync(file, JSON.stringify({ default: 'a:b', prices: {} }));
    expect(() => readPriceTable(file)).toThrow(/not a key of "prices"/);
  });
});
