/** 12345 → "12,345"; fractions with `digits` decimals. */
export function formatNumber(value: number, digits = 0): string {
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** 0.4567 → "45.7%"; null → "n/a". */
export function formatShare(value: number | null, digits = 1): string {
  return value === null ? 'n/a' : `${(value * 100).toFixed(digits)}%`;
}

/** 0.01234 → "$0.0123"; four decimals below a dollar, two above. */
export function formatDollars(value: number): string {
  return value < 1 ? `$${value.toFixed(4)}` : `$${value.toFixed(2)}`;
}
