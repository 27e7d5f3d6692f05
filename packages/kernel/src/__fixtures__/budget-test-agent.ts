import 'reflect-metadata';

import {
  type ChatMessage,
  type CompactionCheckpoint,
  type CompactionHookResult,
  type ComposeOptions,
  createTokenCounter,
  CtxkitEventBus,
  type CtxkitEventName,
  IContextManager,
  IEventBus,
  ILLMClient,
  type ITokenCounter,
  type LLMPayload,
  type ToolDefinition,
} from '@ctxkit/core';
import { computeBudget, PayloadComposer, usageLevel, withUsage } from '@ctxkit/core/strategy-kit';
import { ScriptedLLMClient } from '@ctxkit/core/testing';
import { container as rootContainer } from 'tsyringe';

import { Agent } from '../agent';
import type { AgentOptions } from '../agent-options';
import { IAgentOptions, IToolRegistry } from '../injection-tokens';
import type { AgentTool } from '../tools/agent-tool';
import { ToolRegistry } from '../tools/tool-registry';

/** The exact counter the budget tests count with (o200k, as gpt-4o). */
export const testCounter: ITokenCounter = createTokenCounter({ model: 'gpt-4o' });

const SENTENCE = 'The agent opens the file, reads the failing test, and runs the build again. ';

/** English text of about `tokens` tokens by {@link testCounter} (within one sentence). */
export function sizedText(tokens: number, sentence = SENTENCE): string {
  const per = testCounter.count(sentence.repeat(20)) / 20;
  return sentence.repeat(Math.max(1, Math.round(tokens / per)));
}

/**
 * A strategy that never trims (the worst case the kernel must survive): system + the whole
 * history, with honest stats against a real budget. Optionally compacts when asked with a usage at
 * or above its window: keeps a summary and everything from the last user message.
 */
export class NaiveManager implements IContextManager {
  readonly composed: Array<{
    systemPrompt: string;
    history: ChatMessage[];
    tools: ToolDefinition[];
    options: ComposeOptions | undefined;
  }> = [];
  readonly completed: ChatMessage[][] = [];
  readonly compactionCalls: CompactionCheckpoint[] = [];
  checkCompaction?: (
    checkpoint: CompactionCheckpoint,
    history: readonly ChatMessage[],
    usage?: { input_tokens: number },
  ) => Promise<CompactionHookResult>;

  constructor(
    readonly contextWindow: number,
    readonly reserveOutputTokens: number,
    options: { compactable?: boolean } = {},
  ) {
    if (options.compactable) {
      this.checkCompaction = async (checkpoint, history, usage) => {
        this.compactionCalls.push(checkpoint);
        if (!usage || usage.input_tokens < this.contextWindow) return { compacted: false };
        const lastUser = history.map((m) => m.role).lastIndexOf('user');
        return {
          compacted: true,
          messages: [
            { role: 'user', content: 'Summary of the earlier work: the build was fixed.' },
            ...history.slice(lastUser),
          ],
        };
      };
    }
  }

  /** Ignores compose options (as a custom strategy that does not use the composer does), but records them. */
  async composePayload(
    systemPrompt: string,
    history: ChatMessage[],
    tools: ToolDefinition[],
    _ragContext?: string,
    options?: ComposeOptions,
  ): Promise<LLMPayload> {
    this.composed.push({
      systemPrompt,
      history: structuredClone(history),
      tools: structuredClone(tools),
      options: options === undefined ? undefined : { ...options },
    });
    const messages: ChatMessage[] = [{ role: 'system', content: systemPrompt }, ...history];
    const system = testCounter.countMessage(messages[0]!);
    const toolTokens = testCounter.countTools(tools);
    const historyTokens = testCounter.countMessages(history);
    const used = system + toolTokens + historyTokens;
    const budget = withUsage(
      computeBudget({ contextWindow: this.contextWindow, reserveOutputTokens: this.reserveOutputTokens }),
      used,
    );
    return {
      messages,
      tools,
      stats: {
        strategyId: 'naive',
        model: 'gpt-4o',
        input_tokens: used,
        output_tokens: used,
        compress_ratio: 1,
        budget,
        sections: { system, tools: toolTokens, dynamic: 0, memory: 0, history: historyTokens },
        messages: { input: history.length, output: messages.length },
        reductions: [],
        dropped: 0,
        trimmed: 0,
        summarized: 0,
        compacted: 0,
        usageLevel: usageLevel(used, budget.maxContextTokens),
        counter: testCounter.meta(),
      },
    };
  }

  async onTurnComplete(newHistory: ChatMessage[]): Promise<void> {
    this.completed.push(structuredClone(newHistory));
  }
}

/**
 * A strategy that composes through core's PayloadComposer (as the standard strategies do), so that
 * compose options such as `collapseOlderToolResults` are honoured. Keeps the arrays it is given
 * (not copies) so that tests can compare the messages of both calls by identity.
 */
export class ComposerManager implements IContextManager {
  readonly composed: Array<{ history: ChatMessage[]; options: ComposeOptions | undefined }> = [];
  readonly completed: ChatMessage[][] = [];
  private readonly composer: PayloadComposer;

  constructor(contextWindow: number, reserveOutputTokens: number, events: CtxkitEventBus = new CtxkitEventBus()) {
    const budget = computeBudget({ contextWindow, reserveOutputTokens });
    this.composer = new PayloadComposer({
      owner: { agentId: 'coder', sessionId: 'default', strategyId: 'composer', events },
      model: 'gpt-4o',
      counter: testCounter,
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
    this.composed.push({ history, options: options === undefined ? undefined : { ...options } });
    const turn = history.filter((message) => message.role === 'user').length;
    return this.composer.compose({ systemPrompt, history, tools, ragContext, ...options, turn }).payload;
  }

  async onTurnComplete(newHistory: ChatMessage[]): Promise<void> {
    this.completed.push(newHistory);
  }
}

/** A tool with a JSON-schema definition of about `descriptionTokens` tokens. */
export function testTool(name: string, execute: AgentTool['execute'], descriptionTokens = 20): AgentTool {
  return {
    definition: {
      type: 'function',
      function: {
        name,
        description: sizedText(descriptionTokens),
        parameters: { type: 'object', properties: { path: { type: 'string' }, command: { type: 'string' } } },
      },
    },
    execute,
  };
}

/** A tool call of the scripted model. */
export const toolCall = (id: string, name: string, args: unknown = {}) => ({
  id,
  type: 'function' as const,
  function: { name, arguments: JSON.stringify(args) },
});

/**
 * An Agent resolved from a container with the naive (or any) manager, recording every event.
 * `events`: the agent's bus (the one a `ComposerManager` emits on); `online`: the scripted client
 * counts as a provider, so that the usage it reports teaches the token-count calibration.
 */
export function buildBudgetAgent(input: {
  manager: IContextManager;
  script: ConstructorParameters<typeof ScriptedLLMClient>[0];
  tools?: AgentTool[];
  options?: Partial<AgentOptions>;
  events?: CtxkitEventBus;
  online?: boolean;
}) {
  const llm = new ScriptedLLMClient(input.script);
  if (input.online) Object.assign(llm, { offline: false });
  const events = input.events ?? new CtxkitEventBus();
  const child = rootContainer.createChildContainer();
  child.register(IContextManager, { useValue: input.manager });
  child.register(ILLMClient, { useValue: llm });
  child.register(IEventBus, { useValue: events });
  child.register(IToolRegistry, { useValue: new ToolRegistry(input.tools ?? []) });
  child.register(IAgentOptions, {
    useValue: { agentId: 'coder', strategyId: 'naive', counter: testCounter, ...input.options },
  });
  const agent = child.resolve(Agent);
  const seen: Array<{ name: CtxkitEventName; payload: Record<string, unknown> }> = [];
  const names: CtxkitEventName[] = [
    'budget-escalation',
    'usage-level-change',
    'small-context-mode',
    'user-advice',
    'tool-output-trim',
  ];
  for (const name of names)
    events.on(name, (payload: unknown) => seen.push({ name, payload: payload as Record<string, unknown> }));
  return { agent, llm, events, seen };
}
