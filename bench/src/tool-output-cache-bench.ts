/**
 * One tool-output-cache measurement, run in its own process so that its peak memory is its own:
 * `node bench/dist/tool-output-cache-bench.js <megabytes>`. Builds a command-output-like text of that
 * size, caches it (full content into the store, in-context view back), expands its last lines through
 * the `tool_output_cache` tool (a streamed read), and prints one JSON line.
 */
import 'reflect-metadata';

import { MemoryContextStore } from '@ctxkit/core';
// Not part of the plugin's entry (its factory and config only): the cache is measured on its own.
import { ToolOutputCache } from '@ctxkit/strategy-tool-output-cache/dist/cache/tool-output-cache';
import * as strategyConfig from '@ctxkit/strategy-tool-output-cache/dist/tool-output-cache-strategy-config';

/** Caches one output with the default limits into a fresh store: what the strategy does for each new tool message. */
async function cacheToolOutputView(output: string) {
  const { maxMessageBytes, maxLineLength } = strategyConfig.resolveToolOutputCacheStrategyConfig({}).toolOutputCache;
  const store = new MemoryContextStore();
  const cache = new ToolOutputCache({ store, agentId: 'bench', sessionId: 'default', maxMessageBytes, maxLineLength });
  return { ...(await cache.cache(output)), cache };
}

async function main(): Promise<void> {
  const megabytes = Number(process.argv[2] ?? '5');
  const bytes = Math.floor(megabytes * 1024 * 1024);
  // Warm up (modules, JIT) on a small output so that the measurement sees only the big one.
  await cacheToolOutputView('warm up\n'.repeat(1000));
  if (global.gc) global.gc();
  const rssBeforeOutput = process.memoryUsage().rss;
  // The output is a repeated block, flattened once (indexOf flattens V8's rope): its own size and no more.
  const pattern = Array.from(
    { length: 64 },
    (_, index) =>
      `${String(index).padStart(8, '0')} gcc -O2 -Wall -c src/module-${index % 97}.c -o ` +
      `build/module-${index % 97}.o [ok]\n`,
  ).join('');
  let output = pattern.repeat(Math.ceil(bytes / pattern.length)).slice(0, bytes);
  output.indexOf('\u0000');
  if (global.gc) global.gc();
  const rssBefore = process.memoryUsage().rss;
  // Heap + external memory sampled while the cache works (it yields between 1 MiB pieces).
  const heapAndExternal = () => {
    const usage = process.memoryUsage();
    return usage.heapUsed + usage.external;
  };
  const heapBefore = heapAndExternal();
  let heapPeak = heapBefore;
  const sampler = setInterval(() => {
    heapPeak = Math.max(heapPeak, heapAndExternal());
  }, 0);
  const start = process.hrtime.bigint();
  const { ref, view, cache } = await cacheToolOutputView(output);
  const viewMs = Number(process.hrtime.bigint() - start) / 1e6;
  heapPeak = Math.max(heapPeak, heapAndExternal());
  clearInterval(sampler);
  output = '';
  const expandStart = process.hrtime.bigint();
  const tail = await cache.read(ref.id, { offset: Math.max(1, (ref.line_count ?? 1) - 49), limit: 50 });
  const expandMs = Number(process.hrtime.bigint() - expandStart) / 1e6;
  const peak = process.resourceUsage().maxRSS * 1024;
  process.stdout.write(
    `${JSON.stringify({
      megabytes,
      outputBytes: bytes,
      refBytes: ref.byte_size,
      lines: ref.line_count,
      viewBytes: Buffer.byteLength(view.text),
      viewMs,
      expandLast50LinesMs: expandMs,
      expandedChars: tail.length,
      rssBeforeOutputBytes: rssBeforeOutput,
      rssWithOutputBytes: rssBefore,
      peakRssBytes: peak,
      /** Peak RSS the output costs, its own string and process growth included, over its size. */
      peakOverOutput: (peak - rssBeforeOutput) / bytes,
      /**
       * Peak heap + external memory the caching needs beyond the output string (stored copy included), over its size.
       */
      cachingPeakOverOutput: (heapPeak - heapBefore) / bytes,
    })}\n`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
