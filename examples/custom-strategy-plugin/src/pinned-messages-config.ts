/** Config of `example-pinned-messages-strategy`. Defaults live in plugin.json's configSchema. */
export interface PinnedMessagesConfig {
  /** @default 'gpt-4o' */
  model: string;
  /** @default null */
  maxContextTokens: number | null;
  /** @default null */
  reserveOutputTokens: number | null;
  /** @default 0.1 */
  safetyMarginRatio: number;
  /** @default ['📌', '[pin]', 'IMPORTANT:'] */
  pinMarkers: string[];
  /** @default 0.3 */
  maxPinnedShare: number;
}

export const PINNED_MESSAGES_DEFAULTS: PinnedMessagesConfig = {
  model: 'gpt-4o',
  maxContextTokens: null,
  reserveOutputTokens: null,
  safetyMarginRatio: 0.1,
  pinMarkers: ['📌', '[pin]', 'IMPORTANT:'],
  maxPinnedShare: 0.3,
};
