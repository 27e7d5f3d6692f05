import { CtxkitError, ErrorCodes } from '@ctxkit/core';

/**
 * An Agents SDK input item the adapter cannot convert to ctxkit messages: not an object, a message
 * with an unknown role, or an item of the wrong shape (a `function_call` without a `callId`, ...).
 * Code `CTXKIT_HISTORY_INVALID`, category `user`; `details.index` is the item's position.
 */
export class AgentInputItemError extends CtxkitError {
  constructor(index: number, problem: string) {
    super({
      code: ErrorCodes.HISTORY_INVALID,
      category: 'user',
      message: `Agents SDK item ${index}: ${problem}.`,
      fix:
        'Pass AgentInputItems as the Agents SDK produces them: messages ({ role: "user" | "system" | ' +
        '"assistant", content }), function_call ({ callId, name, arguments }), function_call_result ({ callId, ' +
        'name, output }), reasoning and the other typed items.',
      details: { index, problem },
    });
  }
}
