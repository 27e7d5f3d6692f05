import { type ChatMessage, type LLMPayload, type ToolDefinition } from '@ctxkit/core';
import { contentText } from '@ctxkit/core/strategy-kit';
import type { Instructions, ModelMessage, SystemModelMessage, ToolSet } from 'ai';

import { type ComposeSettings, ragContextFor } from './compose-settings';
import { assertToolsRegistered, callerDefinitions, contributedDefinitions } from './contributed-tool-names';
import { restoreUnchangedMessages } from './restore-unchanged-messages';
import { systemMessagesOf, systemPromptOf } from './system-instructions';
import { toModelMessages } from './to-model-messages';
import { toolSetDefinitions } from './tool-definitions';

/** What to compose: the instructions, the whole conversation, and the tools of the AI SDK call. */
export interface ComposeMessagesInput {
  /** The call's `instructions` (or `system`): a string, a system message, or several. */
  instructions?: Instructions;
  /** The whole conversation, oldest first. */
  messages: ReadonlyArray<ModelMessage>;
  /** Every tool the call registers (yours and the strategy's: `context.tools(yourTools)`). */
  tools?: ToolSet;
}

/** What to send: the strategy's payload as AI SDK `instructions`, `messages` and `activeTools`. */
export interface ComposedMessages {
  /**
   * The caller's instructions plus the strategy's system messages (a summary with `memoryRole: 'system'` ...); `[]` for
   * none.
   */
  instructions: Instructions;
  /** The history the strategy kept; unchanged messages are the caller's own objects. */
  messages: ModelMessage[];
  /** The tools to offer now, when the payload holds fewer than the call registers; `undefined` for all. */
  activeTools: string[] | undefined;
  /** The strategy's payload (ctxkit messages, tool definitions, stats with every reduction). */
  payload: LLMPayload;
}

/** How a composition reads the tools and the history. */
export interface MessageComposer {
  settings: ComposeSettings;
  /** The ctxkit messages of an AI SDK conversation. */
  convert(messages: ReadonlyArray<ModelMessage>): ChatMessage[];
  /** The ctxkit definitions of a tool set. */
  definitions(tools: ToolSet): Promise<ToolDefinition[]>;
}

/** The instructions of a payload's leading system messages: the caller's own (unchanged) and the strategy's. */
function instructionsOf(
  leading: ReadonlyArray<ChatMessage>,
  systemPrompt: string,
  original: Instructions | undefined,
  callerMessages: SystemModelMessage[],
): Instructions {
  const messages: SystemModelMessage[] = [];
  let callers = false;
  leading.forEach((message, index) => {
    const text = contentText(message.content);
    if (index === 0 && text === systemPrompt) {
      messages.push(...callerMessages);
      callers = true;
    } else messages.push({ role: 'system', content: text });
  });
  if (callers && leading.length === 1 && original !== undefined) return original;
  return messages;
}

/**
 * Runs the strategy on an AI SDK conversation and returns what to send instead.
 * @throws ContributedToolsMissingError (`CTXKIT_TOOL_NOT_FOUND`) when `tools` lacks a tool the strategy offers
 * @throws ModelMessageError (`CTXKIT_HISTORY_INVALID`) for a message that is not an AI SDK message
 * @throws whatever `composePayload` throws (`BudgetExceededError` ...)
 */
export async function composeMessages(
  composer: MessageComposer,
  input: ComposeMessagesInput,
): Promise<ComposedMessages> {
  const { settings } = composer;
  const callerMessages = systemMessagesOf(input.instructions);
  const systemPrompt = systemPromptOf(callerMessages);
  const history = composer.convert(input.messages);
  const tools = input.tools ?? {};
  const definitions = await composer.definitions(tools);
  const registered = new Set(Object.keys(tools));
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
  const offered = payload.tools.map((tool) => tool.function.name);
  assertToolsRegistered(settings.strategyId, offered, registered);

  let head = 0;
  while (payload.messages[head]?.role === 'system') head++;
  const counted = new Set(definitions.map((definition) => definition.function.name));
  const offeredSet = new Set(offered);
  const all = [...counted].every((name) => offeredSet.has(name));
  // Provider tools are not counted: they stay active.
  const activeTools = all ? undefined : [...offered, ...Object.keys(tools).filter((name) => !counted.has(name))];
  return {
    instructions: instructionsOf(payload.messages.slice(0, head), systemPrompt, input.instructions, callerMessages),
    messages: toModelMessages(restoreUnchangedMessages(payload.messages.slice(head), history)),
    activeTools,
    payload,
  };
}
