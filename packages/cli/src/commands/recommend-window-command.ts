import type { CliOutput } from '../cli-output';
import { recommendContextWindow } from '../window/recommend-context-window';

/** The options of `ctxkit recommend-window` (see docs/10-small-context.md). */
export interface RecommendWindowOptions {
  modelSize: number;
  quantization?: 'q4' | 'q8' | 'f16';
  preset?: 'speed' | 'balanced' | 'quality';
  memory?: number;
  contextWindow?: number;
  force?: boolean;
  json?: boolean;
}

const GIB = 1024 ** 3;

/**
 * `ctxkit recommend-window`: a context window from machine memory and model size, with
 * the speed / balanced / quality presets; a window that does not fit shrinks with a warning.
 */
export async function recommendWindowCommand(options: RecommendWindowOptions, output: CliOutput): Promise<number> {
  if (!(options.modelSize > 0)) {
    output.err('--model-size must be a positive number of billions of parameters (e.g. 8).\n');
    return 2;
  }
  if (options.memory !== undefined && !(options.memory > 0)) {
    output.err('--memory must be a positive number of GiB.\n');
    return 2;
  }
  const memoryBytes = options.memory !== undefined ? Math.round(options.memory * GIB) : undefined;
  const result = recommendContextWindow({
    modelParamsBillions: options.modelSize,
    quantization: options.quantization,
    preset: options.preset,
    totalMemoryBytes: memoryBytes,
    freeMemoryBytes: memoryBytes,
    requested: options.contextWindow,
    force: options.force,
  });
  if (options.json) {
    output.out(`${JSON.stringify(result, null, 2)}\n`);
    return 0;
  }
  output.out(`Recommended context window: ${result.contextWindow.toLocaleString('en-US')} tokens (${result.preset})\n`);
  output.out(
    `  model weights ~${(result.modelBytes / GIB).toFixed(1)} GiB, KV cache ` +
      `~${(result.kvCacheBytes / GIB).toFixed(1)} GiB, memory ` +
      `budget ${(result.memoryBudgetBytes / GIB).toFixed(1)} GiB\n`,
  );
  for (const warning of result.warnings) output.out(`  ${warning.startsWith('⚠') ? warning : `⚠ ${warning}`}\n`);
  return 0;
}
