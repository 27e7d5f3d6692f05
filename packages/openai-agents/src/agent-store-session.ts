import type { IContextStore, StoreKey } from '@ctxkit/core';
import type { AgentInputItem, Session } from '@openai/agents';

/** The store entry of a session's items. */
export const SESSION_ITEMS_STORE_NAME = 'openai-agents-items';

/**
 * An Agents SDK `Session` whose items live in a ctxkit store, under the agent and session
 * (`kind: 'state'`, name {@link SESSION_ITEMS_STORE_NAME}): the default store of a `CtxkitSession`,
 * so that a file or Redis store keeps the conversation with the strategy's state. It returns
 * copies, stores copies, and leaves the items as they were when a write fails.
 */
export class AgentStoreSession implements Session {
  private items: AgentInputItem[] | undefined;
  private readonly key: StoreKey;

  constructor(
    private readonly store: IContextStore,
    agentId: string,
    private readonly sessionId: string,
  ) {
    this.key = { agentId, sessionId, kind: 'state', name: SESSION_ITEMS_STORE_NAME };
  }

  async getSessionId(): Promise<string> {
    return this.sessionId;
  }

  async getItems(limit?: number): Promise<AgentInputItem[]> {
    const items = await this.load();
    if (limit === undefined) return structuredClone(items);
    return limit <= 0 ? [] : structuredClone(items.slice(-limit));
  }

  async addItems(items: AgentInputItem[]): Promise<void> {
    if (items.length === 0) return;
    const next = [...(await this.load()), ...structuredClone(items)];
    await this.store.set(this.key, next);
    this.items = next;
  }

  async popItem(): Promise<AgentInputItem | undefined> {
    const items = await this.load();
    if (items.length === 0) return undefined;
    const next = items.slice(0, -1);
    await this.store.set(this.key, next);
    this.items = next;
    return structuredClone(items.at(-1));
  }

  async clearSession(): Promise<void> {
    await this.store.delete(this.key);
    this.items = [];
  }

  private async load(): Promise<AgentInputItem[]> {
    this.items ??= (await this.store.get<AgentInputItem[]>(this.key)) ?? [];
    return this.items;
  }
}
