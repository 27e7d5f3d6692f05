/** The plugin id (`plugin.json`'s `id`). */
export const TOOL_OUTPUT_CACHE_STRATEGY_ID = 'std-tool-output-cache-strategy';
