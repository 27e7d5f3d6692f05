import type { IModelRegistry } from '../models/model-registry';
import { type BpeEncoder, GptTokenizerEncoder, JsTiktokenEncoder } from './bpe-encoder';
import { BpeTokenCounter, SharedCountCaches } from './bpe-token-counter';
import { HeuristicTokenCounter } from './heuristic-counter';
import { type BpeEncodingName, resolveModelEncoding } from './model-encodings';
import type { ITokenCounter, TokenizerBackend } from './token-counter';

/**
 * The backend `auto` picks: gpt-tokenizer, measured in `bench/` at 5–8× the speed of js-tiktoken with
 * identical o200k and cl100k counts. js-tiktoken remains a first-class exact backend.
 * @default 'gpt-tokenizer'
 */
export const DEFAULT_TOKENIZER_BACKEND: Exclude<TokenizerBackend, 'heuristic'> = 'gpt-tokenizer';

/** Options of {@link createTokenCounter}. */
export interface CreateTokenCounterOptions {
  /** Model name or alias; it picks the encoding (see `resolveModelEncoding`). Unknown names still count. */
  model: string;
  /**
   * `gpt-tokenizer`, `js-tiktoken` (exact BPE), `heuristic` (chars/4 fallback, an estimate) or `auto`
   * (the fastest exact backend installed, else the heuristic).
   * @default 'auto'
   */
  backend?: 'auto' | TokenizerBackend;
  /** When the registry knows the model, its `encoding` and `approximateEncoding` are used. */
  registry?: IModelRegistry;
}

const sharedCaches = new Map<string, { encoder: BpeEncoder; caches: SharedCountCaches }>();
const counters = new Map<string, ITokenCounter>();

function isInstalled(moduleId: string): boolean {
  try {
    require.resolve(moduleId);
    return true;
  } catch {
    return false;
  }
}

function pickBackend(backend: 'auto' | TokenizerBackend): TokenizerBackend {
  if (backend !== 'auto') return backend;
  if (isInstalled('gpt-tokenizer/encoding/o200k_base')) return DEFAULT_TOKENIZER_BACKEND;
  if (isInstalled('js-tiktoken/lite')) return 'js-tiktoken';
  return 'heuristic';
}

function shared(
  backend: 'gpt-tokenizer' | 'js-tiktoken',
  encoding: BpeEncodingName,
): { encoder: BpeEncoder; caches: SharedCountCaches } {
  const key = `${backend}:${encoding}`;
  let entry = sharedCaches.get(key);
  if (entry === undefined) {
    const encoder = backend === 'gpt-tokenizer' ? new GptTokenizerEncoder(encoding) : new JsTiktokenEncoder(encoding);
    entry = { encoder, caches: new SharedCountCaches() };
    sharedCaches.set(key, entry);
  }
  return entry;
}

/**
 * Returns the token counter for a model. Exact BPE backends (gpt-tokenizer,
 * js-tiktoken) and the heuristic fallback share the {@link ITokenCounter} interface. Model aliases map
 * to an encoding (gpt-4o / gpt-4.1 / o-series / gpt-5 → o200k_base; gpt-4 / gpt-3.5-turbo →
 * cl100k_base; claude-*, gemini-*, local models → o200k_base, stated as approximate in `meta()`); an
 * unknown model still counts with o200k_base, stated. Counters, and their caches, are shared per
 * (backend, encoding): counts cached for one agent serve every agent.
 *
 * Never throws for a model name; throws a `RangeError` only for an unknown backend name.
 */
export function createTokenCounter(options: CreateTokenCounterOptions): ITokenCounter {
  const backend = pickBackend(options.backend ?? 'auto');
  const resolved = resolveModelEncoding(options.model, options.registry);
  const key = `${backend}:${resolved.encoding}:${resolved.approximate ? 1 : 0}:${options.model}`;
  const existing = counters.get(key);
  if (existing !== undefined) return existing;
  let counter: ITokenCounter;
  if (backend === 'heuristic') counter = new HeuristicTokenCounter(options.model);
  else if (backend === 'gpt-tokenizer' || backend === 'js-tiktoken') {
    const { encoder, caches } = shared(backend, resolved.encoding);
    counter = new BpeTokenCounter(encoder, caches, options.model, resolved);
  } else {
    throw new RangeError(
      `createTokenCounter: unknown backend "${String(backend)}" (expected auto, gpt-tokenizer, js-tiktoken or ` +
        `heuristic)`,
    );
  }
  counters.set(key, counter);
  return counter;
}
