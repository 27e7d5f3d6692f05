import os from 'node:os';

/** Weight quantization of a local model; decides how much memory the weights take. */
export type ModelQuantization = 'q4' | 'q8' | 'f16';

/**
 * Presets: `speed` = 50% of the automatic choice, `balanced` = the automatic choice,
 * `quality` = 150% of it, capped by memory.
 */
export type ContextWindowPreset = 'speed' | 'balanced' | 'quality';

/** Input of {@link recommendContextWindow}. */
export interface ContextWindowRequest {
  /** Model size in billions of parameters (8 for an 8B model). */
  modelParamsBillions: number;
  /** Weight quantization. @default 'q4' */
  quantization?: ModelQuantization;
  /** Machine memory in bytes. @default os.totalmem() */
  totalMemoryBytes?: number;
  /** Memory free now, in bytes (before the model loads). @default os.freemem() */
  freeMemoryBytes?: number;
  /** How to turn the automatic choice into a window. Ignored when `requested` is set. @default 'balanced' */
  preset?: ContextWindowPreset;
  /** A window the user asked for (e.g. `--context-window 16384`); shrunk when memory is short. */
  requested?: number;
  /** Keep `requested` even when memory is short (at the user's own risk). @default false */
  force?: boolean;
  /**
   * The model's own limit: no recommendation exceeds it, and a larger `requested` window is lowered to
   * it with a warning. @default 131072 for recommendations; a requested window is not capped unless set
   */
  maxContextWindow?: number;
}

/** Output of {@link recommendContextWindow}. */
export interface ContextWindowRecommendation {
  /** The window to configure, in tokens. */
  contextWindow: number;
  /** The preset applied, or `'custom'` when a window was requested. */
  preset: ContextWindowPreset | 'custom';
  /** Estimated memory of the model weights. */
  modelBytes: number;
  /** Estimated KV-cache memory at `contextWindow`. */
  kvCacheBytes: number;
  /** Memory the model and its KV cache may use together on this machine. */
  memoryBudgetBytes: number;
  /** Plain-language notes for the user (shrinking, forcing, capping); empty when all is well. */
  warnings: string[];
  /** True when a requested window was reduced to fit memory. */
  shrunk: boolean;
}

const GIB = 1024 ** 3;

/**
 * KV-cache table for q4 models: GiB of KV cache per 4,096 tokens of context, by model size.
 * The cache grows linearly with the window (8B: ~1 GB at 4K, ~2 GB at 8K, ~4 GB at 16K, ~8 GB at 32K).
 */
export const KV_CACHE_GIB_PER_4K_TOKENS: ReadonlyArray<{ paramsBillions: number; gib: number }> = [
  { paramsBillions: 8, gib: 1 },
  { paramsBillions: 14, gib: 1.5 },
  { paramsBillions: 30, gib: 3.5 },
];

/** Window sizes a requested window is shrunk to, largest that fits first. */
export const STANDARD_CONTEXT_WINDOWS: readonly number[] = [4096, 8192, 16384, 32768, 65536, 131072];

/** The smallest window ever recommended: below it an agent cannot hold a system prompt and a turn. */
export const MIN_CONTEXT_WINDOW = 2048;

/** Bits per weight, including quantization scales (llama.cpp Q4_K_M ~4.5, Q8_0 ~8.5). */
const BITS_PER_WEIGHT: Record<ModelQuantization, number> = { q4: 4.5, q8: 8.5, f16: 16 };

/** Share of total memory kept for the operating system and other programs (at least 2 GiB). */
const SYSTEM_RESERVE_SHARE = 0.2;
const MIN_SYSTEM_RESERVE_BYTES = 2 * GIB;
/** Fixed runtime overhead beside weights and KV cache (compute buffers, runtime). */
const RUNTIME_OVERHEAD_BYTES = 0.5 * GIB;

function formatGiB(bytes: number): string {
  return `${(bytes / GIB).toFixed(1)} GB`;
}

/**
 * Estimated KV-cache memory of a model at a window, interpolated from a table of measured models by
 * parameter count (linear between rows, proportional outside them). The cache is f16 by default in
 * local runtimes whatever the weight quantization, so quantization does not change it.
 */
export function estimateKvCacheBytes(modelParamsBillions: number, contextTokens: number): number {
  const rows = KV_CACHE_GIB_PER_4K_TOKENS;
  const first = rows[0]!;
  const last = rows[rows.length - 1]!;
  let gibPer4k: number;
  if (modelParamsBillions <= first.paramsBillions) gibPer4k = (first.gib * modelParamsBillions) / first.paramsBillions;
  else if (modelParamsBillions >= last.paramsBillions)
    gibPer4k = (last.gib * modelParamsBillions) / last.paramsBillions;
  else {
    const upperIndex = rows.findIndex((row) => row.paramsBillions >= modelParamsBillions);
    const upper = rows[upperIndex]!;
    const lower = rows[upperIndex - 1]!;
    const t = (modelParamsBillions - lower.paramsBillions) / (upper.paramsBillions - lower.paramsBillions);
    gibPer4k = lower.gib + t * (upper.gib - lower.gib);
  }
  return Math.round(((gibPer4k * GIB) / 4096) * contextTokens);
}

/** Estimated memory of the model weights. */
export function estimateModelBytes(modelParamsBillions: number, quantization: ModelQuantization = 'q4'): number {
  return Math.round((modelParamsBillions * 1e9 * BITS_PER_WEIGHT[quantization]) / 8);
}

/**
 * Recommends a context window from machine memory and model size ("context window
 * automatic choice"): memory → model size → room left for the KV cache → window.
 *
 * - The automatic (`balanced`) window is the largest of {@link STANDARD_CONTEXT_WINDOWS} whose KV
 *   cache fits the room left after the system reserve (20% of memory, at least 2 GiB; also never more
 *   than the free memory), the weights and 0.5 GiB of runtime overhead. `speed` takes 50% of it,
 *   `quality` 150%, capped by memory (rounded down to a multiple of 1024).
 * - A `requested` window that does not fit is shrunk to the largest standard window that fits, with
 *   a warning (`⚠ Not enough memory: the context window was reduced 32768 → 8192 …`); with
 *   `force` it is kept, with a warning. It never throws for lack of memory: a beginner must not be
 *   stopped by it.
 *
 * @throws RangeError for a non-positive model size or requested window (a programming error)
 * @see docs/10-small-context.md
 */
export function recommendContextWindow(request: ContextWindowRequest): ContextWindowRecommendation {
  const params = request.modelParamsBillions;
  if (!(Number.isFinite(params) && params > 0)) {
    throw new RangeError(`recommendContextWindow: modelParamsBillions must be a positive number (got ${params})`);
  }
  if (request.requested !== undefined && !(Number.isInteger(request.requested) && request.requested > 0)) {
    throw new RangeError(`recommendContextWindow: requested must be a positive integer (got ${request.requested})`);
  }
  const quantization = request.quantization ?? 'q4';
  const totalMemoryBytes = request.totalMemoryBytes ?? os.totalmem();
  const freeMemoryBytes = request.freeMemoryBytes ?? os.freemem();
  const maxContextWindow = request.maxContextWindow ?? STANDARD_CONTEXT_WINDOWS[STANDARD_CONTEXT_WINDOWS.length - 1]!;

  const reserve = Math.max(MIN_SYSTEM_RESERVE_BYTES, totalMemoryBytes * SYSTEM_RESERVE_SHARE);
  const memoryBudgetBytes = Math.max(0, Math.floor(Math.min(totalMemoryBytes - reserve, freeMemoryBytes)));
  const modelBytes = estimateModelBytes(params, quantization);
  const kvRoom = memoryBudgetBytes - modelBytes - RUNTIME_OVERHEAD_BYTES;
  const fits = (tokens: number) => estimateKvCacheBytes(params, tokens) <= kvRoom;
  const warnings: string[] = [];

  if (kvRoom <= 0) {
    warnings.push(
      `⚠ The ${params}B ${quantization} model needs about ${formatGiB(modelBytes)} of memory, and only ` +
        `${formatGiB(memoryBudgetBytes)} is available: answers will be slow. ` +
        (quantization === 'q4'
          ? 'A smaller model would help.'
          : 'A smaller model or a stronger quantization (q4) would help.'),
    );
  }

  /** Largest standard window that fits (and is within the model's limit), else the minimum. */
  const largestStandardFit = (atMost: number) =>
    [...STANDARD_CONTEXT_WINDOWS].reverse().find((size) => size <= atMost && size <= maxContextWindow && fits(size));
  const largestFit = (atMost: number) => {
    // Exact inverse of the linear KV estimate, then down to a multiple of 1024.
    const perToken = estimateKvCacheBytes(params, 4096) / 4096;
    const tokens = perToken > 0 ? Math.floor(Math.max(0, kvRoom) / perToken) : atMost;
    return Math.min(atMost, Math.floor(tokens / 1024) * 1024);
  };

  const result = (
    contextWindow: number,
    preset: ContextWindowRecommendation['preset'],
    shrunk: boolean,
  ): ContextWindowRecommendation => ({
    contextWindow,
    preset,
    modelBytes,
    kvCacheBytes: estimateKvCacheBytes(params, contextWindow),
    memoryBudgetBytes,
    warnings,
    shrunk,
  });

  if (request.requested !== undefined) {
    let requested = request.requested;
    if (request.maxContextWindow !== undefined && requested > request.maxContextWindow) {
      warnings.push(
        `⚠ The model supports at most ${request.maxContextWindow} tokens, so the context window ` +
          `is ${request.maxContextWindow}, not ${requested}.`,
      );
      requested = request.maxContextWindow;
    }
    if (fits(requested)) return result(requested, 'custom', false);
    const needed = estimateKvCacheBytes(params, requested);
    if (request.force) {
      warnings.push(
        `⚠ A context window of ${requested} tokens needs about ${formatGiB(needed)} for its cache, and only ` +
          `${formatGiB(Math.max(0, kvRoom))} is left after the model. Kept because it was forced: expect ` +
          'swapping and slow answers.',
      );
      return result(requested, 'custom', false);
    }
    const shrunkTo = largestStandardFit(requested) ?? MIN_CONTEXT_WINDOW;
    warnings.push(
      `⚠ Not enough memory: the context window was reduced ${requested} → ${shrunkTo}. ` +
        'Work on large files will be done in smaller parts.',
    );
    if (shrunkTo === MIN_CONTEXT_WINDOW && !fits(MIN_CONTEXT_WINDOW)) {
      warnings.push(`⚠ Even ${MIN_CONTEXT_WINDOW} tokens do not fit in memory: expect swapping and slow answers.`);
    }
    return result(shrunkTo, 'custom', true);
  }

  const preset = request.preset ?? 'balanced';
  const automatic = largestStandardFit(maxContextWindow) ?? MIN_CONTEXT_WINDOW;
  if (automatic === MIN_CONTEXT_WINDOW && !fits(MIN_CONTEXT_WINDOW)) {
    warnings.push(`⚠ Even ${MIN_CONTEXT_WINDOW} tokens do not fit in memory: expect swapping and slow answers.`);
  }
  if (preset === 'balanced') return result(automatic, preset, false);
  if (preset === 'speed') return result(Math.max(MIN_CONTEXT_WINDOW, Math.floor(automatic / 2)), preset, false);

  const wanted = Math.min(maxContextWindow, Math.floor((automatic * 1.5) / 1024) * 1024);
  const capped = Math.max(automatic, largestFit(wanted));
  if (capped < wanted) {
    warnings.push(`Quality preset: ${wanted} tokens would not fit in memory, so the window is ${capped}.`);
  }
  return result(capped, preset, false);
}
