import type { InjectionToken } from 'tsyringe';

import type { IContextManager as ContextManagerContract } from '../contracts/context-manager';
import type { IContextStore as ContextStoreContract } from '../contracts/context-store';
import type { ILLMClient as LLMClientContract } from '../contracts/llm-client';
import type { ITextEmbedder as TextEmbedderContract } from '../contracts/text-embedder';
import type { CtxkitEventBus } from '../events/event-bus';
import type { IModelRegistry as ModelRegistryContract } from '../models/model-registry';
import type { StrategyContext } from '../plugins/strategy-plugin';
import type { ITokenCounter as TokenCounterContract } from '../token-counting/token-counter';

/*
 * DI tokens, one per service interface, built with Symbol.for so that two copies of core agree.
 * Never use a string literal in @inject(...).
 */

/** The agent's context manager for its default session. */
export const IContextManager: InjectionToken<ContextManagerContract> = Symbol.for('ctxkit:IContextManager');
/** The agent's token counter (its model's encoding). */
export const ITokenCounter: InjectionToken<TokenCounterContract> = Symbol.for('ctxkit:ITokenCounter');
/** The store for summaries, entity state, tool outputs, transcripts. */
export const IContextStore: InjectionToken<ContextStoreContract> = Symbol.for('ctxkit:IContextStore');
/** The agent's language model client (may be unregistered when none is configured). */
export const ILLMClient: InjectionToken<LLMClientContract> = Symbol.for('ctxkit:ILLMClient');
/** The agent's text embedder, for recall by meaning (may be unregistered when none is configured). */
export const ITextEmbedder: InjectionToken<TextEmbedderContract> = Symbol.for('ctxkit:ITextEmbedder');
/** The agent's event bus. */
export const IEventBus: InjectionToken<CtxkitEventBus> = Symbol.for('ctxkit:IEventBus');
/** The model registry (shared by every agent of a runtime). */
export const IModelRegistry: InjectionToken<ModelRegistryContract> = Symbol.for('ctxkit:IModelRegistry');
/** The default session's strategy context. */
export const IStrategyContext: InjectionToken<StrategyContext> = Symbol.for('ctxkit:IStrategyContext');
/** The agent's id (string). */
export const IAgentId: InjectionToken<string> = Symbol.for('ctxkit:IAgentId');

/*
 * Each token name is also its interface's type, so that `import { IContextManager } from '@ctxkit/core'`
 * serves both `@inject(IContextManager)` and `manager: IContextManager`.
 */
export type IContextManager = ContextManagerContract;
export type ITokenCounter = TokenCounterContract;
export type IContextStore = ContextStoreContract;
export type ILLMClient = LLMClientContract;
export type ITextEmbedder = TextEmbedderContract;
export type IModelRegistry = ModelRegistryContract;
