import type { ModelInfo } from './model-info';

/**
 * Models known out of the box. Windows and output limits are the providers' published figures;
 * Claude and local models are counted with o200k_base as a stated approximation.
 */
export const BUILTIN_MODELS: readonly ModelInfo[] = [
  { id: 'gpt-4o', contextWindow: 128000, maxOutputTokens: 16384, encoding: 'o200k_base', prefixes: ['gpt-4o-20', 'chatgpt-4o'], provider: 'openai' },
  { id: 'gpt-4o-mini', contextWindow: 128000, maxOutputTokens: 16384, encoding: 'o200k_base', prefixes: ['gpt-4o-mini-'], provider: 'openai' },
  { id: 'gpt-4.1', contextWindow: 1047576, maxOutputTokens: 32768, encoding: 'o200k_base', prefixes: ['gpt-4.1-20'], provider: 'openai' },
  { id: 'gpt-4.1-mini', contextWindow: 1047576, maxOutputTokens: 32768, encoding: 'o200k_base', provider: 'openai' },
  { id: 'gpt-4.1-nano', contextWindow: 1047576, maxOutputTokens: 32768, encoding: 'o200k_base', provider: 'openai' },
  { id: 'gpt-4-turbo', contextWindow: 128000, maxOutputTokens: 4096, encoding: 'cl100k_base', provider: 'openai' },
  { id: 'gpt-4', contextWindow: 8192, maxOutputTokens: 8192, encoding: 'cl100k_base', provider: 'openai' },
  { id: 'gpt-3.5-turbo', contextWindow: 16385, maxOutputTokens: 4096, encoding: 'cl100k_base', aliases: ['gpt-35-turbo'], prefixes: ['gpt-3.5-turbo-'], provider: 'openai' },
  { id: 'o1', contextWindow: 200000, maxOutputTokens: 100000, encoding: 'o200k_base', prefixes: ['o1-'], provider: 'openai' },
  { id: 'o3', contextWindow: 200000, maxOutputTokens: 100000, encoding: 'o200k_base', prefixes: ['o3-'], provider: 'openai' },
  { id: 'o4-mini', contextWindow: 200000, maxOutputTokens: 100000, encoding: 'o200k_base', prefixes: ['o4-mini-'], provider: 'openai' },
  { id: 'gpt-5', contextWindow: 400000, maxOutputTokens: 128000, encoding: 'o200k_base', prefixes: ['gpt-5-'], provider: 'openai' },
  { id: 'claude-3-5-sonnet', contextWindow: 200000, maxOutputTokens: 8192, encoding: 'o200k_base', prefixes: ['claude-3-5-sonnet-'], provider: 'anthropic', approximateEncoding: true },
  { id: 'claude-3-5-haiku', contextWindow: 200000, maxOutputTokens: 8192, encoding: 'o200k_base', prefixes: ['claude-3-5-haiku-'], provider: 'anthropic', approximateEncoding: true },
  { id: 'claude-3-7-sonnet', contextWindow: 200000, maxOutputTokens: 64000, encoding: 'o200k_base', prefixes: ['claude-3-7-sonnet-'], provider: 'anthropic', approximateEncoding: true },
  { id: 'claude-sonnet-4', contextWindow: 200000, maxOutputTokens: 64000, encoding: 'o200k_base', prefixes: ['claude-sonnet-4-'], provider: 'anthropic', approximateEncoding: true },
  { id: 'claude-opus-4', contextWindow: 200000, maxOutputTokens: 32000, encoding: 'o200k_base', prefixes: ['claude-opus-4-'], provider: 'anthropic', approximateEncoding: true },
  { id: 'claude-haiku-4-5', contextWindow: 200000, maxOutputTokens: 64000, encoding: 'o200k_base', prefixes: ['claude-haiku-4-5-'], provider: 'anthropic', approximateEncoding: true },
  { id: 'gemini-1.5-flash', contextWindow: 1048576, maxOutputTokens: 8192, encoding: 'o200k_base', prefixes: ['gemini-1.5-flash-'], provider: 'google', approximateEncoding: true },
  { id: 'gemini-1.5-pro', contextWindow: 2097152, maxOutputTokens: 8192, encoding: 'o200k_base', prefixes: ['gemini-1.5-pro-'], provider: 'google', approximateEncoding: true },
  { id: 'gemini-2.0-flash', contextWindow: 1048576, maxOutputTokens: 8192, encoding: 'o200k_base', provider: 'google', approximateEncoding: true },
  { id: 'gemini-2.5-flash', contextWindow: 1048576, maxOutputTokens: 65536, encoding: 'o200k_base', provider: 'google', approximateEncoding: true },
  { id: 'gemini-2.5-pro', contextWindow: 1048576, maxOutputTokens: 65536, encoding: 'o200k_base', provider: 'google', approximateEncoding: true },
  { id: 'llama-4-maverick', contextWindow: 1048576, maxOutputTokens: 16384, encoding: 'o200k_base', aliases: ['openrouter-llama-4-maverick'], provider: 'local', approximateEncoding: true },
  { id: 'llama3.1:8b', contextWindow: 131072, maxOutputTokens: 4096, encoding: 'o200k_base', aliases: ['llama3.1'], provider: 'local', approximateEncoding: true },
  { id: 'qwen2.5-coder:7b', contextWindow: 32768, maxOutputTokens: 4096, encoding: 'o200k_base', provider: 'local', approximateEncoding: true },
  { id: 'local-8k', contextWindow: 8192, maxOutputTokens: 1024, encoding: 'o200k_base', provider: 'local', approximateEncoding: true },
  { id: 'local-16k', contextWindow: 16384, maxOutputTokens: 2048, encoding: 'o200k_base', provider: 'local', approximateEncoding: true },
];
