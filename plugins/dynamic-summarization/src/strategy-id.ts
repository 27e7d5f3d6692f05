import manifest from '../plugin.json';

/** The plugin id (`std-summarization-strategy`), as plugin.json names it. */
export const SUMMARIZATION_STRATEGY_ID: string = manifest.id;
