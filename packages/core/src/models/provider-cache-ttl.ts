import type { IModelRegistry } from './model-registry';

/**
 * How long each provider keeps a prompt's cached prefix after its last use, by default, in ms: the
 * shortest the provider documents, since a reduction timed to it must come before the cache is gone.
 * - `anthropic`: 5 minutes (a breakpoint may ask for 1 hour, at a higher write price);
 * - `openai`: 5 to 10 minutes of inactivity (up to an hour off-peak), so 5.
 * Providers not listed (implicit caches with no documented lifetime, local models) have none.
 */
export const PROVIDER_CACHE_TTL_MS: Readonly<Record<string, number>> = Object.freeze({
  anthropic: 5 * 60_000,
  openai: 5 * 60_000,
});

/**
 * The cache lifetime of `model`'s provider ({@link PROVIDER_CACHE_TTL_MS}), or undefined when the registry does not
 * know it or the provider has none listed.
 */
export function providerCacheTtlMs(models: IModelRegistry, model: string): number | undefined {
  const provider = models.find(model)?.provider;
  return provider === undefined ? undefined : PROVIDER_CACHE_TTL_MS[provider];
}
