import type { ChatMessage } from '../contracts/chat-message';
import type {
  ComposeOptions,
  CompactionCheckpoint,
  CompactionHookResult,
  ContextManager,
  ContextManagerCapabilities,
  ContributedTool,
  IContextManager,
} from '../contracts/context-manager';
import type { ContextSession } from '../contracts/context-session';
import type { LLMPayload } from '../contracts/llm-payload';
import type { ReductionEpoch, ReductionPreview, UndoResult } from '../contracts/reduction-epoch';
import type { TokenUsage } from '../contracts/token-usage';
import type { ToolDefinition } from '../contracts/tool-definition';
import { CapabilityUnsupportedError } from '../errors/capability-unsupported-error';
import { DisposedError } from '../errors/disposed-error';
import { StrategyError } from '../errors/strategy-error';
import { toStrategyError } from './guard-strategy-call';

/** The optional capabilities a session manager mirrors from its strategy. */
export type CapabilityName = Exclude<keyof ContextManagerCapabilities, 'truncatesToolOutputs' | 'epochs' | 'preview' | 'undo'>;

/** The capability methods an instance has. */
export function capabilitiesOf(manager: IContextManager): Set<CapabilityName> {
  const names: CapabilityName[] = ['contributedTools', 'checkCompaction', 'whenIdle', 'dispose'];
  return new Set(names.filter((name) => typeof (manager as ContextManagerCapabilities)[name] === 'function'));
}

/** Who a session manager belongs to. */
export interface SessionManagerOwner {
  pluginId: string;
  agentId: string;
  sessionId: string;
  /** True once the agent is disposed. */
  isDisposed(): boolean;
  /** Called on every call into the strategy, once its instance exists. */
  noteUse?(): void;
}

/**
 * One session's strategy instance behind the plugin boundary. Every call into
 * the plugin (`composePayload`, `onTurnComplete`, `dispose`, and the optional capabilities) is
 * wrapped: a non-ctxkit error becomes a `StrategyError` with pluginId, agentId and method; a ctxkit
 * error passes through. The optional capability methods the strategy has stay visible, so the
 * kernel's `hasContributedTools` / `hasCompactionHooks` / `hasWhenIdle` checks keep working.
 *
 * `onTurnComplete` calls of one session run one after another, in call order, so that two turns
 * reported concurrently never interleave inside a strategy.
 */
export class SessionContextManager implements ContextSession {
  private instance: IContextManager | undefined;
  private readonly ready: Promise<IContextManager>;
  private turnChain: Promise<unknown> = Promise.resolve();

  contributedTools?: () => ContributedTool[];
  checkCompaction?: (
    checkpoint: CompactionCheckpoint,
    history: ReadonlyArray<ChatMessage>,
    usage?: TokenUsage,
  ) => Promise<CompactionHookResult>;
  whenIdle?: () => Promise<void>;
  dispose?: () => Promise<void>;

  constructor(
    private readonly owner: SessionManagerOwner,
    created: IContextManager | Promise<IContextManager>,
    capabilities: ReadonlySet<CapabilityName>,
  ) {
    if (isPromiseLike(created)) {
      this.ready = Promise.resolve(created).then(
        (manager) => (this.instance = this.checked(manager)),
        (error: unknown) => {
          throw toStrategyError(error, owner.pluginId, owner.agentId, 'createStrategy');
        },
      );
      // Reported on use; never an unhandled rejection.
      this.ready.catch(() => undefined);
    } else {
      this.instance = this.checked(created);
      this.ready = Promise.resolve(this.instance);
    }
    this.mirror(capabilities);
  }

  /**
   * Shows the optional capability methods named (the strategy's own), so that the kernel's
   * `hasContributedTools` / `hasCompactionHooks` / `hasWhenIdle` checks see them. The agent learns them
   * from its default session's instance and gives them to every session.
   */
  mirror(capabilities: ReadonlySet<CapabilityName>): void {
    if (capabilities.has('contributedTools')) this.contributedTools = () => this.contributedToolsNow();
    if (capabilities.has('checkCompaction')) {
      this.checkCompaction = (checkpoint, history, usage) =>
        this.call('checkCompaction', (manager) =>
          (manager as ContextManager).checkCompaction
            ? (manager as ContextManager).checkCompaction!(checkpoint, history, usage)
            : Promise.resolve({ compacted: false }),
        );
    }
    if (capabilities.has('whenIdle')) {
      this.whenIdle = () => this.call('whenIdle', async (manager) => {
        await (manager as ContextManager).whenIdle?.();
      });
    }
    if (capabilities.has('dispose')) this.dispose = () => this.disposeInstance();
  }

  get sessionId(): string {
    return this.owner.sessionId;
  }

  epochs(): Promise<ReductionEpoch[]> {
    return this.call('epochs', async (manager) => ((manager as ContextManager).epochs ? (manager as ContextManager).epochs!() : []));
  }

  preview(systemPrompt: string, history: ChatMessage[], tools: ToolDefinition[], ragContext?: string, options?: ComposeOptions): Promise<ReductionPreview> {
    return this.call('preview', (manager) => {
      const strategy = manager as ContextManager;
      if (typeof strategy.preview !== 'function') throw new CapabilityUnsupportedError(this.owner.pluginId, 'preview');
      return strategy.preview(systemPrompt, history, tools, ragContext, options);
    });
  }

  undo(epochId: string): Promise<UndoResult> {
    // After the turns reported so far, so that an undo never lands inside a turn's state update.
    const run = this.turnChain.then(() =>
      this.call('undo', (manager) => {
        const strategy = manager as ContextManager;
        if (typeof strategy.undo !== 'function') throw new CapabilityUnsupportedError(this.owner.pluginId, 'undo');
        return strategy.undo(epochId);
      }),
    );
    this.turnChain = run.catch(() => undefined);
    return run;
  }

  /** The strategy's declared `truncatesToolOutputs` (false until its instance exists). */
  get truncatesToolOutputs(): boolean {
    return (this.instance as ContextManagerCapabilities | undefined)?.truncatesToolOutputs === true;
  }

  /** The strategy instance, once created (for tests and diagnostics). */
  get strategy(): IContextManager | undefined {
    return this.instance;
  }

  /** Resolves when the strategy instance exists; rejects with the factory's (wrapped) error. */
  async whenReady(): Promise<this> {
    await this.ready;
    return this;
  }

  composePayload(systemPrompt: string, history: ChatMessage[], tools: ToolDefinition[], ragContext?: string, options?: ComposeOptions): Promise<LLMPayload> {
    return this.call('composePayload', (manager) =>
      options !== undefined
        ? manager.composePayload(systemPrompt, history, tools, ragContext, options)
        : ragContext === undefined
          ? manager.composePayload(systemPrompt, history, tools)
          : manager.composePayload(systemPrompt, history, tools, ragContext),
    );
  }

  onTurnComplete(newHistory: ChatMessage[]): Promise<void> {
    const run = this.turnChain.then(() => this.call('onTurnComplete', (manager) => manager.onTurnComplete(newHistory)));
    this.turnChain = run.catch(() => undefined);
    return run;
  }

  /** Disposes the strategy instance (the agent calls it; safe more than once). */
  async disposeInstance(): Promise<void> {
    let manager: IContextManager;
    try {
      manager = await this.ready;
    } catch {
      return; // the strategy was never created: nothing to release
    }
    const dispose = (manager as ContextManager).dispose;
    if (typeof dispose !== 'function') return;
    try {
      await dispose.call(manager);
    } catch (error) {
      throw toStrategyError(error, this.owner.pluginId, this.owner.agentId, 'dispose');
    }
  }

  private contributedToolsNow(): ContributedTool[] {
    this.assertUsable();
    if (!this.instance) {
      throw new StrategyError(
        this.owner.pluginId,
        this.owner.agentId,
        'contributedTools',
        new Error(`session "${this.owner.sessionId}" is still being created; await agent.openSession() first`),
      );
    }
    try {
      return (this.instance as ContextManager).contributedTools?.() ?? [];
    } catch (error) {
      throw toStrategyError(error, this.owner.pluginId, this.owner.agentId, 'contributedTools');
    }
  }

  private async call<T>(method: string, run: (manager: IContextManager) => T | Promise<T>): Promise<T> {
    this.assertUsable();
    const manager = await this.ready;
    this.owner.noteUse?.();
    try {
      return await run(manager);
    } catch (error) {
      throw toStrategyError(error, this.owner.pluginId, this.owner.agentId, method);
    }
  }

  private assertUsable(): void {
    if (this.owner.isDisposed()) throw new DisposedError(`Agent "${this.owner.agentId}"`);
  }

  private checked(manager: unknown): IContextManager {
    const candidate = manager as Partial<IContextManager> | null | undefined;
    if (!candidate || typeof candidate.composePayload !== 'function' || typeof candidate.onTurnComplete !== 'function') {
      throw new StrategyError(
        this.owner.pluginId,
        this.owner.agentId,
        'createStrategy',
        new TypeError('the factory did not return an IContextManager (composePayload and onTurnComplete functions)'),
      );
    }
    return candidate as IContextManager;
  }
}

function isPromiseLike(value: unknown): value is PromiseLike<IContextManager> {
  return typeof (value as PromiseLike<unknown> | null)?.then === 'function';
}
