import { SerialQueue } from '../concurrency/serial-queue';
import type { ChatMessage } from '../contracts/chat-message';
import type {
  CompactionCheckpoint,
  CompactionHookResult,
  ComposeOptions,
  ContextManagerCapabilities,
  ContributedTool,
  IContextManager,
} from '../contracts/context-manager';
import type { ContextSession } from '../contracts/context-session';
import type { LLMPayload } from '../contracts/llm-payload';
import type { Pin, PinOptions } from '../contracts/pin';
import type { ReductionEpoch, ReductionPreview, UndoResult } from '../contracts/reduction-epoch';
import type { TokenUsage } from '../contracts/token-usage';
import type { ToolDefinition } from '../contracts/tool-definition';
import { CapabilityUnsupportedError } from '../errors/capability-unsupported-error';
import { DisposedError } from '../errors/disposed-error';
import { StrategyError } from '../errors/strategy-error';
import type { CtxkitEventBus } from '../events/event-bus';
import { createPinTools } from '../pins/pin-tools';
import type { SessionPins } from '../pins/session-pins';
import { traceCompose } from '../telemetry/compose-telemetry';
import type { SessionTraceRecorder } from '../trace/session-trace';
import { toStrategyError } from './guard-strategy-call';

/** The optional capabilities a session manager mirrors from its strategy. */
export type CapabilityName = Exclude<
  keyof ContextManagerCapabilities,
  'truncatesToolOutputs' | 'epochs' | 'preview' | 'undo'
>;

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
  /** The agent's event bus: its lifecycle events during a compose become events of the compose span. */
  events?: CtxkitEventBus;
  /** The session's trace, when the agent has `sessionTrace` on (docs/15-observability.md). */
  trace?: SessionTraceRecorder;
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
 *
 * The session's pins live here, so every strategy honours them without knowing: each call gets the
 * system prompt with the pinned block after it and the history with pinned messages replaced by
 * stand-ins; messages the strategy gives back (a compacted history) get the pinned originals back.
 */
export class SessionContextManager implements ContextSession {
  private instance: IContextManager | undefined;
  private readonly ready: Promise<IContextManager>;
  /** Turn completions and undos, one at a time in call order. */
  private readonly turns = new SerialQueue();
  /** The `pin_context` / `unpin_context` tools, when the agent offers them. */
  private readonly pinTools: ContributedTool[];
  /** Whether the strategy contributes tools of its own. */
  private strategyTools = false;

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
    private readonly pinLayer: SessionPins,
    pinTool = false,
  ) {
    this.pinTools = pinTool ? createPinTools(this) : [];
    if (pinTool) this.contributedTools = () => this.contributedToolsNow();
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
    if (capabilities.has('contributedTools')) {
      this.strategyTools = true;
      this.contributedTools = () => this.contributedToolsNow();
    }
    if (capabilities.has('checkCompaction')) {
      this.checkCompaction = (checkpoint, history, usage) =>
        this.call('checkCompaction', async (manager) => {
          const strategy = manager as IContextManager;
          if (!strategy.checkCompaction) return { compacted: false };
          const result = await strategy.checkCompaction(
            checkpoint,
            await this.pinLayer.forStrategy(history as ChatMessage[]),
            usage,
          );
          return result.messages ? { ...result, messages: await this.pinLayer.restore(result.messages) } : result;
        });
    }
    if (capabilities.has('whenIdle')) {
      this.whenIdle = () =>
        this.call('whenIdle', async (manager) => {
          await (manager as IContextManager).whenIdle?.();
        });
    }
    if (capabilities.has('dispose')) this.dispose = () => this.disposeInstance();
  }

  get sessionId(): string {
    return this.owner.sessionId;
  }

  epochs(): Promise<ReductionEpoch[]> {
    return this.call('epochs', async (manager) =>
      (manager as IContextManager).epochs ? (manager as IContextManager).epochs!() : [],
    );
  }

  preview(
    systemPrompt: string,
    history: ChatMessage[],
    tools: ToolDefinition[],
    ragContext?: string,
    options?: ComposeOptions,
  ): Promise<ReductionPreview> {
    return this.call('preview', async (manager) => {
      const strategy = manager as IContextManager;
      if (typeof strategy.preview !== 'function') throw new CapabilityUnsupportedError(this.owner.pluginId, 'preview');
      const pinned = await this.pinLayer.prepare(systemPrompt, history, false);
      return strategy.preview(
        pinned?.systemPrompt ?? systemPrompt,
        pinned?.history ?? history,
        tools,
        ragContext,
        options,
      );
    });
  }

  undo(epochId: string): Promise<UndoResult> {
    // After the turns reported so far, so that an undo never lands inside a turn's state update.
    return this.turns.run(() =>
      this.call('undo', async (manager) => {
        const strategy = manager as IContextManager;
        if (typeof strategy.undo !== 'function') throw new CapabilityUnsupportedError(this.owner.pluginId, 'undo');
        const result = await strategy.undo(epochId);
        return result.history ? { ...result, history: await this.pinLayer.restore(result.history) } : result;
      }),
    );
  }

  async pin(target: number | string, options?: PinOptions): Promise<Pin> {
    this.assertUsable();
    return this.pinLayer.pin(target, options);
  }

  async unpin(pinId: string): Promise<boolean> {
    this.assertUsable();
    return this.pinLayer.unpin(pinId);
  }

  async pins(): Promise<Pin[]> {
    this.assertUsable();
    return this.pinLayer.list();
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

  /**
   * Composes inside a `ctxkit.compose` OpenTelemetry span (a no-op until the host registers a tracer
   * provider) and records ctxkit's metrics from the payload's stats; with the session trace on, the
   * compose is also an entry of the session's trace (docs/15-observability.md). A composition no model
   * call receives (`options.sent: false`) is a `ctxkit.read_window` span, in no metric and no trace entry.
   */
  composePayload(
    systemPrompt: string,
    history: ChatMessage[],
    tools: ToolDefinition[],
    ragContext?: string,
    options?: ComposeOptions,
  ): Promise<LLMPayload> {
    if (options?.sent === false) {
      const { sent: _notSent, ...forStrategy } = options;
      return traceCompose(
        this.owner,
        () =>
          this.composeInStrategy(
            systemPrompt,
            history,
            tools,
            ragContext,
            Object.keys(forStrategy).length > 0 ? forStrategy : undefined,
            false,
          ),
        false,
      );
    }
    return traceCompose(this.owner, () =>
      this.composeInStrategy(systemPrompt, history, tools, ragContext, options, true),
    );
  }

  private composeInStrategy(
    systemPrompt: string,
    history: ChatMessage[],
    tools: ToolDefinition[],
    ragContext: string | undefined,
    options: ComposeOptions | undefined,
    sent: boolean,
  ): Promise<LLMPayload> {
    return this.call('composePayload', async (manager) => {
      const pinned = await this.pinLayer.prepare(systemPrompt, history, true);
      const system = pinned?.systemPrompt ?? systemPrompt;
      const seen = pinned?.history ?? history;
      const payload = await (options !== undefined
        ? manager.composePayload(system, seen, tools, ragContext, options)
        : ragContext === undefined
          ? manager.composePayload(system, seen, tools)
          : manager.composePayload(system, seen, tools, ragContext));
      const finished = this.pinLayer.finish(payload, pinned);
      if (sent)
        this.owner.trace?.recordCompose(
          history,
          finished,
          pinned?.shown.flatMap((pin) =>
            pin.kind === 'message' && pin.messageIndex !== undefined ? [pin.messageIndex] : [],
          ),
        );
      return finished;
    });
  }

  /** Resolves once the session's trace holds every compose so far (at once without a trace). */
  async traceFlushed(): Promise<void> {
    await this.owner.trace?.flushed();
  }

  onTurnComplete(newHistory: ChatMessage[]): Promise<void> {
    return this.turns.run(() =>
      this.call('onTurnComplete', async (manager) =>
        manager.onTurnComplete(await this.pinLayer.forStrategy(newHistory)),
      ),
    );
  }

  /** Disposes the strategy instance (the agent calls it; safe more than once). */
  async disposeInstance(): Promise<void> {
    await this.traceFlushed();
    let manager: IContextManager;
    try {
      manager = await this.ready;
    } catch {
      return; // the strategy was never created: nothing to release
    }
    const dispose = (manager as IContextManager).dispose;
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
      if (!this.strategyTools) return [...this.pinTools];
      throw new StrategyError(
        this.owner.pluginId,
        this.owner.agentId,
        'contributedTools',
        new Error(`session "${this.owner.sessionId}" is still being created; await agent.openSession() first`),
      );
    }
    try {
      return [...((this.instance as IContextManager).contributedTools?.() ?? []), ...this.pinTools];
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
    if (
      !candidate ||
      typeof candidate.composePayload !== 'function' ||
      typeof candidate.onTurnComplete !== 'function'
    ) {
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
