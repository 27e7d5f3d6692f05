import * as kernel from './index';

// Pins the public surface: adding or removing an export is a deliberate change to this list.
describe('@ctxkit/kernel exports', () => {
  it(
    'exports exactly the public runtime API: the agent loop, model clients, provider adapters, the budget engine ' +
      'and count calibration',
    () => {
      expect(Object.keys(kernel).sort()).toEqual([
        'ANTHROPIC_API_VERSION',
        'ANTHROPIC_COMPACTION_BETA',
        'ANTHROPIC_DEFAULT_BASE_URL',
        'Agent',
        'AnthropicClient',
        'CalibratedTokenCounter',
        'CountCalibration',
        'DEFAULT_MAX_STEPS',
        'DEFAULT_SMALL_CONTEXT_THRESHOLD',
        'DEFAULT_TOOL_OUTPUT_CAPS',
        'EARLIER_CONVERSATION_NOTE',
        'IAgentOptions',
        'IToolRegistry',
        'MIN_TOOL_OUTPUT_TOKENS',
        'OPENAI_DEFAULT_BASE_URL',
        'OVERFLOW_RETRY_SHARE',
        'OpenAICompatibleClient',
        'OpenAICompatibleEmbedder',
        'OpenAIResponsesClient',
        'PARTIAL_PROMPT_SHARE',
        'PROVIDER_NAMES',
        'ResponsesHistoryCache',
        'SMALL_CONTEXT_MODES',
        'THINKING_PREFIX_RULE',
        'ThinkingPrefixBinding',
        'ToolRegistry',
        'UsageAnchoredCount',
        'cannotFitAdvice',
        'classifyContextOverflow',
        'createAgent',
        'createLLMClientFromEnv',
        'findAnthropicProblems',
        'findProviderProblems',
        'fromAnthropicContent',
        'fromAnthropicMessages',
        'fromOpenAIChatMessage',
        'fromResponsesOutput',
        'makeToolCallIdsUnique',
        'overflowRetryLimit',
        'planSmallContext',
        'preSendCheck',
        'resolveToolOutputPolicy',
        'selectPromptAndTools',
        'smallContextFromManifest',
        'splitReadingAdvice',
        'tierLabel',
        'toAnthropicMessages',
        'toAnthropicTools',
        'toOpenAIChatMessages',
        'toOpenAIChatTools',
        'toResponsesInput',
        'toResponsesTools',
        'truncateToolResult',
        'validateForProvider',
      ]);
    },
  );

  it('keeps the loop internals internal: the steps, the frozen-message bookkeeping, the agent-wide calibration', () => {
    for (const name of [
      'freezeNewMessage',
      'frozenMessage',
      'adoptedMessage',
      'AgentCountCalibration',
      'IncrementalPayloadCount',
      'composeStep',
      'runToolsStep',
    ]) {
      expect(kernel).not.toHaveProperty(name);
    }
  });
});
