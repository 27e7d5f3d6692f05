import { type ChatMessage, type ToolDefinition } from '@ctxkit/core';
import { contentText } from '@ctxkit/core/strategy-kit';

import type {
  LanguageModelCallOptions,
  LanguageModelFunctionTool,
  LanguageModelMessage,
  LanguageModelTool,
} from './ai-sdk-types';
import { type ComposeSettings, ragContextFor } from './compose-settings';
import {
  assertToolsRegistered,
  callerDefinitions,
  contributedDefinitions,
  sameToolDefinition,
} from './contributed-tool-names';
import { restoreUnchangedMessages } from './restore-unchanged-messages';
import { toChatMessages } from './to-chat-messages';
import { toLanguageModelPrompt } from './to-model-messages';
import { functionToolDefinition, languageModelTool } from './tool-definitions';

/** A composed language-model call and the history it was composed from. */
export interface ComposedCall {
  params: LanguageModelCallOptions;
  /** The caller's whole conversation (after its system messages), as ctxkit messages. */
  history: ChatMessage[];
}

/**
 * Runs the strategy on one language-model call: the leading system messages are the system
 * prompt, the rest of the prompt the history, the caller's own function tools the tool
 * definitions (the strategy adds its own when it offers them). The call goes on with the payload:
 * the caller's own system messages (unchanged) and the strategy's system messages, the memory it
 * sends as user messages (a summary, a state, by default) and the history the strategy kept (unchanged messages exactly
 * as they came), and the tools the payload holds (the caller's unchanged, the strategy's as it defines them). Provider
 * tools pass through and are not counted.
 * @throws ContributedToolsMissingError (`CTXKIT_TOOL_NOT_FOUND`) when the call lacks a tool the strategy offers
 * @throws whatever `composePayload` throws (`BudgetExceededError` ...)
 */
export async function composeCall(settings: ComposeSettings, params: LanguageModelCallOptions): Promise<ComposedCall> {
  const prompt = params.prompt;
  let lead = 0;
  while (prompt[lead]?.role === 'system') lead++;
  const systemMessages = prompt.slice(0, lead);
  const systemPrompt = systemMessages.map((message) => message.content as string).join('\n\n');
  const history = toChatMessages(prompt.slice(lead));

  const tools: ReadonlyArray<LanguageModelTool> = params.tools ?? [];
  const functionTools = tools.filter((tool): tool is LanguageModelFunctionTool => tool.type === 'function');
  const providerTools = tools.filter((tool) => tool.type !== 'function');
  const definitions = functionTools.map(functionToolDefinition);
  const originals = new Map<ToolDefinition, LanguageModelFunctionTool>(
    definitions.map((definition, index) => [definition, functionTools[index]!]),
  );
  const registered = new Set(functionTools.map((tool) => tool.name));
  const contributed = contributedDefinitions(settings.manager);
  assertToolsRegistered(
    settings.strategyId,
    contributed.map((definition) => definition.function.name),
    registered,
  );

  const ragContext = await ragContextFor(settings, history);
  const payload = await settings.manager.composePayload(
    systemPrompt,
    history.slice(),
    callerDefinitions(definitions, contributed),
    ragContext,
    { ...settings.composeOptions },
  );
  assertToolsRegistered(
    settings.strategyId,
    payload.tools.map((tool) => tool.function.name),
    registered,
  );

  let head = 0;
  while (payload.messages[head]?.role === 'system') head++;
  const system: LanguageModelMessage[] = [];
  payload.messages.slice(0, head).forEach((message, index) => {
    const text = contentText(message.content);
    if (index === 0 && text === systemPrompt) system.push(...systemMessages);
    else system.push({ role: 'system', content: text });
  });
  const sentTools: LanguageModelTool[] = payload.tools.map((definition) => {
    const original =
      originals.get(definition) ??
      functionTools.find(
        (tool, index) => tool.name === definition.function.name && sameToolDefinition(definitions[index]!, definition),
      );
    return original ?? languageModelTool(definition);
  });
  sentTools.push(...providerTools);
  return {
    params: {
      ...params,
      prompt: [...system, ...toLanguageModelPrompt(restoreUnchangedMessages(payload.messages.slice(head), history))],
      tools: params.tools === undefined && sentTools.length === 0 ? undefined : sentTools,
    },
    history,
  };
}
