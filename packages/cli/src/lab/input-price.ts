import * as fs from 'node:fs';
import * as path from 'node:path';

import { CtxkitError, ErrorCodes } from '@ctxkit/core';

import { PRESETS_DIR } from './lab-config';

/** USD per million input tokens of one provider model. */
export interface InputPrice {
  /** Uncached input. */
  input: number;
  /** A prompt-cache hit (OpenAI cached input, Anthropic cache read). */
  cachedInput: number;
  /**
   * Writing the cache with its default time to live (Anthropic's five minutes: 1.25× the input
   * price), charged for the uncached part of a cached request. OpenAI charges no more than input.
   * @default input
   */
  cacheWrite?: number;
  /** Writing the cache with a one-hour time to live (Anthropic: 2× the input price). @default cacheWrite */
  cacheWrite1h?: number;
}

/** The time to live of the cache entries a request writes: Anthropic's five minutes (its default) or one hour. */
export type CacheTtl = '5m' | '1h';

/** The cache-write price of `price` for entries of `ttl`. */
export function cacheWritePrice(price: InputPrice, ttl: CacheTtl = '5m'): number {
  const fiveMinutes = price.cacheWrite ?? price.input;
  return ttl === '1h' ? (price.cacheWrite1h ?? fiveMinutes) : fiveMinutes;
}

/** A price table: `provider:model` to its prices, and the one the lab uses by default. */
export interface PriceTable {
  default: string;
  prices: Record<string, InputPrice>;
}

/** The bundled price table (`presets/provider-prices.json`), or the file given. */
export function readPriceTable(file = path.join(PRESETS_DIR, 'provider-prices.json')): PriceTable {
  let parsed: unknown;
  try {
    parsed = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    throw priceError(file, `cannot read it: ${(error as Error).message}`);
  }
  const table = parsed as Partial<PriceTable>;
  if (
    typeof table !== 'object' ||
    table === null ||
    typeof table.prices !== 'object' ||
    table.prices === null ||
    typeof table.default !== 'string'
  ) {
    throw priceError(
      file,
      'it needs "default" (a key of "prices") and "prices" ({ "provider:model": { "input": n, "cachedInput": n } })',
    );
  }
  for (const [key, price] of Object.entries(table.prices)) {
    const optional = (value: unknown) => value === undefined || (typeof value === 'number' && value >= 0);
    const valid =
      typeof price?.input === 'number' &&
      price.input >= 0 &&
      typeof price.cachedInput === 'number' &&
      price.cachedInput >= 0 &&
      optional(price.cacheWrite) &&
      optional(price.cacheWrite1h);
    if (!valid)
      throw priceError(
        file,
        `"${key}" needs non-negative numbers "input" and "cachedInput" (and optionally "cacheWrite", "cacheWrite1h")`,
      );
  }
  if (!(table.default in table.prices))
    throw priceError(file, `"default" is "${table.default}", which is not a key of "prices"`);
  return table as PriceTable;
}

/** The price of `key` in `table`, with the fix when it is missing. */
export function priceOf(table: PriceTable, key = table.default): InputPrice {
  const price = table.prices[key];
  if (price === undefined) {
    throw new CtxkitError({
      code: ErrorCodes.CONFIG_INVALID,
      category: 'user',
      message: `No input price for "${key}".`,
      fix: `Use one of ${Object.keys(table.prices)
        .map((k) => `"${k}"`)
        .join(', ')}, or add it to a price file given with --prices.`,
      details: { key },
    });
  }
  return price;
}

/**
 * Input cost in USD of one payload: without a cache every token at the input price; with one, its
 * repeated prefix read from the cache at the cache price and the rest written to it at the write
 * price of `ttl` (the input price where the provider charges no more for writing).
 */
export function payloadInputCost(
  price: InputPrice,
  sentTokens: number,
  repeatedTokens: number,
  withCache: boolean,
  ttl: CacheTtl = '5m',
): number {
  if (!withCache) return (sentTokens * price.input) / 1e6;
  const cached = Math.min(repeatedTokens, sentTokens);
  return (cached * price.cachedInput + (sentTokens - cached) * cacheWritePrice(price, ttl)) / 1e6;
}

function priceError(file: string, problem: string): CtxkitError {
  return new CtxkitError({
    code: ErrorCodes.CONFIG_INVALID,
    category: 'user',
    message: `Price file ${file}: ${problem}.`,
    fix: 'Fix the file, or leave --prices out to use the bundled table (packages/cli/presets/provider-prices.json).',
    details: { file },
  });
}
