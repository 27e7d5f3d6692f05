import type { ChatMessage, ComposeOptions, IContextManager } from '@ctxkit/core';

/** Retrieved knowledge for a payload: fixed text, or a function of the history about to be composed. */
export type RagContextSource =
  string | ((history: ReadonlyArray<ChatMessage>) => string | undefined | Promise<string | undefined>);

/** What one composition needs: the session's strategy and how the host wants the payload shaped. */
export interface ComposeSettings {
  manager: IContextManager;
  /** The strategy's plugin id, for error messages. */
  strategyId: string;
  ragContext?: RagContextSource;
  composeOptions?: ComposeOptions;
}

/** The dynamic context for a history. */
export async function ragContextFor(
  settings: ComposeSettings,
  history: ReadonlyArray<ChatMessage>,
): Promise<string | undefined> {
  const source = settings.ragContext;
  return typeof source === 'function' ? source(history) : source;
}
