/**
 * `std-tool-output-cache-strategy`: tool output cache, micro-compact and compaction. The plugin
 * entry exports its factory and the config it takes.
 * @see docs/strategies/tool-output-cache.md
 */
export { createStrategy } from './tool-output-cache-strategy';
export type { ToolOutputCacheStrategyConfig } from './tool-output-cache-strategy-config';
