import { AnthropicClient } from './anthropic-client';
import { createLLMClientFromEnv } from './create-llm-client-from-env';
import { OpenAICompatibleClient } from './openai-compatible-client';

describe('createLLMClientFromEnv', () => {
  describe('#createLLMClientFromEnv', () => {
    it('returns undefined when nothing is configured', () => {
      expect(createLLMClientFromEnv({ env: {} })).toBeUndefined();
    });

    it('builds an OpenAI-compatible client from a base URL alone (Ollama, llama.cpp, vLLM)', () => {
      const client = createLLMClientFromEnv({
        env: { OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1', OPENAI_MODEL: 'qwen2.5-coder:7b' },
      });
      expect(client).toBeInstanceOf(OpenAICompatibleClient);
      expect(client!.defaultModel).toBe('qwen2.5-coder:7b');
    });

    it('builds an Anthropic client from ANTHROPIC_API_KEY', () => {
      expect(createLLMClientFromEnv({ env: { ANTHROPIC_API_KEY: 'k' } })).toBeInstanceOf(AnthropicClient);
    });

    it('prefers OpenAI when both are set unless told otherwise', () => {
      const env = { OPENAI_API_KEY: 'a', ANTHROPIC_API_KEY: 'b' };
      expect(createLLMClientFromEnv({ env })).toBeInstanceOf(OpenAICompatibleClient);
      expect(createLLMClientFromEnv({ env, prefer: 'anthropic' })).toBeInstanceOf(AnthropicClient);
      expect(createLLMClientFromEnv({ env: { ...env, CTXKIT_LLM_PROVIDER: 'anthropic' } })).toBeInstanceOf(
        AnthropicClient,
      );
    });
  });
});
