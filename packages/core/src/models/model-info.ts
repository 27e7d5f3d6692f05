/** What the registry knows of one model. */
export interface ModelInfo {
  /** Canonical id, e.g. `gpt-4o`. */
  id: string;
  /** Context window in tokens (max input + output). */
  contextWindow: number;
  /** Max output tokens the provider accepts. */
  maxOutputTokens: number;
  /** Tokenizer encoding used to count for this model (`o200k_base`, `cl100k_base`). */
  encoding: 'o200k_base' | 'cl100k_base';
  /** Other names resolving to this model. */
  aliases?: string[];
  /** Id prefixes resolving to this model (`claude-3-5-sonnet` matches `claude-3-5-sonnet-20241022`). */
  prefixes?: string[];
  provider?: string;
  /** True when counts by `encoding` approximate a different provider tokenizer (Claude, local models). */
  approximateEncoding?: boolean;
}
