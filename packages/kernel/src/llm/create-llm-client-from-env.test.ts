import { AnthropicClient } from './anthropic-client';
import { createLLMClientFromEnv } from './create-llm-client-from-env';
import { OpenAICompatibleClient } from './openai-compatible-client';
import { OpenAIResponsesClient } from './openai-responses-client';

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

    it('builds the Responses API client when CTXKIT_LLM_PROVIDER or prefer names openai-responses', () => {
      const env = { OPENAI_API_KEY: 'a', ANTHROPIC_API_KEY: 'b', OPENAI_MODEL: 'gpt-5.6' };
      const client = createLLMClientFromEnv({ env: { ...env, CTXKIT_LLM_PROVIDER: 'openai-responses' } });
      expect(client).toBeInstanceOf(OpenAIResponsesClient);
      expect(client!.provider).toBe('openai-responses');
      expect(client!.defaultModel).toBe('gpt-5.6');
      expect(createLLMClientFromEnv({ env, prefer: 'openai-responses' })).toBeInstanceOf(OpenAIResponsesClient);
      // Without an OpenAI configuration it is no OpenAI client.
      expect(
        createLLMClientFromEnv({ env: { ANTHROPIC_API_KEY: 'b', CTXKIT_LLM_PROVIDER: 'openai-responses' } }),
      ).toBeInstanceOf(AnthropicClient);
      // A name it does not know is ignored, as before.
      expect(createLLMClientFromEnv({ env: { ...env, CTXKIT_LLM_PROVIDER: 'gemini' } })).toBeInstanceOf(
        OpenAICompatibleClient,
      );
    });
  });
});
