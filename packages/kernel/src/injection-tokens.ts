import type { InjectionToken } from 'tsyringe';

import type { AgentOptions } from './agent-options';
import type { IToolRegistry as ToolRegistryContract } from './tools/tool-registry';

/*
 * The kernel's DI tokens, beside core's (`IContextManager`, `ILLMClient`, `IEventBus` ...). Built
 * with Symbol.for so that two copies of the kernel agree. Never use a string literal in @inject(...).
 */

/** The agent's tools (the user's; strategy-contributed tools are added per run). */
export const IToolRegistry: InjectionToken<ToolRegistryContract> = Symbol.for('ctxkit:IToolRegistry');
/** The agent's kernel settings. */
export const IAgentOptions: InjectionToken<AgentOptions> = Symbol.for('ctxkit:IAgentOptions');
