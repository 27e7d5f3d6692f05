import {
  type ChatMessage,
  type ComposeOptions,
  type ContextRuntime,
  type ContributedTool,
  type LLMPayload,
  type StrategyContext,
  type ToolDefinition,
} from '@ctxkit/core';
import { computeBudget, type MemoryBlock, PayloadComposer } from '@ctxkit/core/strategy-kit';

/** The id the recording strategy is registered under. */
export const RECORDING_STRATEGY_ID = 'recording-strategy';

/** Config of the recording strategy (JSON: it goes through the runtime's config validation). */
export interface RecordingStrategyConfig {
  maxContextTokens?: number;
  /** Memory text for the n-th payload (`''` or absent: no memory block). */
  memory?: string[];
  /** Caller tools the payloads leave out (as a strategy that offers tools only when useful). */
  withhold?: string[];
  /** Contribute the `recall` tool, and offer it in every payload. */
  recall?: boolean;
  /** Send copies of the history's messages (tool results with a cache ref), as a strategy that copies what it keeps. */
  copy?: boolean;
}

/** One `composePayload` call as the strategy received it. */
export interface RecordedComposition {
  systemPrompt: string;
  history: ChatMessage[];
  tools: ToolDefinition[];
  ragContext: string | undefined;
  options: ComposeOptions | undefined;
  payload: LLMPayload;
}

function copyOf(message: ChatMessage): ChatMessage {
  const copy = structuredClone(message);
  return copy.role === 'tool' ? { ...copy, output_ref: { id: 'to_0123456789abcdef0123456789abcdef' } } : copy;
}

/** Definition of the `recall` tool the recording strategy contributes. */
export const RECALL_DEFINITION: ToolDefinition = {
  type: 'function',
  function: {
    name: 'recall',
    description: 'Recall a saved note by its key.',
    parameters: { type: 'object', properties: { key: { type: 'string' } }, required: ['key'] },
  },
};

/**
 * A strategy for the adapter's tests: core's composer (the budget, whole tool-call groups, the
 * newest user message), an optional memory block per payload, and a record of every call.
 */
export class RecordingStrategy {
  readonly compositions: RecordedComposition[] = [];
  readonly turns: ChatMessage[][] = [];
  readonly toolCalls: Array<{ args: unknown; toolCallId: string; sessionId: string }> = [];
  private readonly composer: PayloadComposer;

  constructor(
    private readonly config: RecordingStrategyConfig,
    readonly context: StrategyContext,
  ) {
    const budget = computeBudget({
      contextWindow: 128_000,
      maxContextTokens: config.maxContextTokens ?? 100_000,
      reserveOutputTokens: 0,
    });
    this.composer = new PayloadComposer({
      owner: {
        agentId: context.agentId,
        sessionId: context.sessionId,
        strategyId: RECORDING_STRATEGY_ID,
        events: context.events,
      },
      model: context.model,
      counter: context.counter,
      budget: () => budget,
    });
  }

  async composePayload(
    systemPrompt: string,
    history: ChatMessage[],
    tools: ToolDefinition[],
    ragContext?: string,
    options?: ComposeOptions,
  ): Promise<LLMPayload> {
    const text = this.config.memory?.[this.compositions.length] ?? '';
    const memory: MemoryBlock[] = text ? [{ name: 'notes', content: text, placement: 'after-system' }] : [];
    const offered = tools.filter((tool) => !(this.config.withhold ?? []).includes(tool.function.name));
    if (this.config.recall && !offered.some((tool) => tool.function.name === RECALL_DEFINITION.function.name))
      offered.push(RECALL_DEFINITION);
    const composed = this.composer.compose({
      systemPrompt,
      history,
      tools: offered,
      ragContext,
      memory,
      turn: this.turns.length,
      ...options,
    }).payload;
    const payload = this.config.copy ? { ...composed, messages: composed.messages.map(copyOf) } : composed;
    this.compositions.push({ systemPrompt, history: [...history], tools: [...tools], ragContext, options, payload });
    return payload;
  }

  async onTurnComplete(history: ChatMessage[]): Promise<void> {
    this.turns.push([...history]);
  }

  contributedTools(): ContributedTool[] {
    if (!this.config.recall) return [];
    return [
      {
        definition: RECALL_DEFINITION,
        execute: async (args, context) => {
          this.toolCalls.push({ args, toolCallId: context.toolCallId, sessionId: context.sessionId });
          return `note ${(args as { key?: string }).key ?? '?'} (call ${context.toolCallId})`;
        },
      },
    ];
  }
}

/** Registers the recording strategy on a runtime; the instances it creates (one per session) are listed in order. */
export function registerRecordingStrategy(runtime: ContextRuntime): RecordingStrategy[] {
  const instances: RecordingStrategy[] = [];
  runtime.registerStrategy({ id: RECORDING_STRATEGY_ID }, (config: RecordingStrategyConfig, context) => {
    const instance = new RecordingStrategy(config, context);
    instances.push(instance);
    return instance;
  });
  return instances;
}
