import type { ContributedTool } from '../contracts/context-manager';
import type { Pin, PinOptions } from '../contracts/pin';
import type { ToolDefinition } from '../contracts/tool-definition';
import { PinTargetError } from '../errors/pin-target-error';

/** Name of the tool that pins a text. */
export const PIN_CONTEXT_TOOL = 'pin_context';
/** Name of the tool that removes a pin. */
export const UNPIN_CONTEXT_TOOL = 'unpin_context';

const PIN_CONTEXT_DEFINITION: ToolDefinition = {
  type: 'function',
  function: {
    name: PIN_CONTEXT_TOOL,
    description:
      'Keep a text in your context for the rest of this conversation (shown after the system prompt, never dropped ' +
      'or summarized). Returns the pin id.',
    parameters: {
      type: 'object',
      properties: { text: { type: 'string' }, label: { type: 'string' } },
      required: ['text'],
    },
  },
};

const UNPIN_CONTEXT_DEFINITION: ToolDefinition = {
  type: 'function',
  function: {
    name: UNPIN_CONTEXT_TOOL,
    description: 'Remove a pin by its id (p1, p2, …) once it is no longer needed.',
    parameters: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
  },
};

/** What the pin tools work on: a session's pins. */
export interface PinToolTarget {
  readonly sessionId: string;
  pin(target: string, options?: PinOptions): Promise<Pin>;
  unpin(pinId: string): Promise<boolean>;
  pins(): Promise<Pin[]>;
}

/** The arguments of a tool call as an object (the kernel may hand over the JSON text). */
function argumentsObject(sessionId: string, args: unknown): Record<string, unknown> {
  let value = args;
  if (typeof value === 'string') {
    try {
      value = value.trim() === '' ? {} : JSON.parse(value);
    } catch {
      throw new PinTargetError(sessionId, 'the tool arguments are not valid JSON');
    }
  }
  if (value === undefined || value === null) value = {};
  if (typeof value !== 'object' || Array.isArray(value))
    throw new PinTargetError(sessionId, 'the tool arguments must be a JSON object');
  return value as Record<string, unknown>;
}

/**
 * The tools a session contributes when its agent manifest sets `"pinTool": true`:
 * `pin_context({ text, label? })` pins a text and answers its id; `unpin_context({ id })` removes a pin.
 */
export function createPinTools(session: PinToolTarget): ContributedTool[] {
  return [
    {
      definition: PIN_CONTEXT_DEFINITION,
      async execute(args) {
        const input = argumentsObject(session.sessionId, args);
        if (typeof input.text !== 'string')
          throw new PinTargetError(session.sessionId, 'pin_context needs a "text" string');
        if (input.label !== undefined && input.label !== null && typeof input.label !== 'string')
          throw new PinTargetError(session.sessionId, 'pin_context\'s "label" must be a string');
        const pin = await session.pin(input.text, typeof input.label === 'string' ? { label: input.label } : {});
        return (
          `Pinned as ${pin.id}: it stays in the pinned block after the system prompt for the rest of this ` +
          `conversation.`
        );
      },
    },
    {
      definition: UNPIN_CONTEXT_DEFINITION,
      async execute(args) {
        const input = argumentsObject(session.sessionId, args);
        if (typeof input.id !== 'string' || input.id === '')
          throw new PinTargetError(session.sessionId, 'unpin_context needs an "id" string (p1, p2, …)');
        if (await session.unpin(input.id)) return `Unpinned ${input.id}.`;
        const ids = (await session.pins()).map((pin) => pin.id);
        return `No pin ${input.id}; the pins are: ${ids.length > 0 ? ids.join(', ') : 'none'}.`;
      },
    },
  ];
}
