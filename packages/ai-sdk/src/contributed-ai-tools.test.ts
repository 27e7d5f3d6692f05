import { createHash } from 'node:crypto';

import { type ChatMessage, CtxkitError, ErrorCodes } from '@ctxkit/core';
import type { ToolExecutionOptions } from 'ai';

import { type CtxkitLanguageModelMiddleware, ctxkitMiddleware } from './ctxkit-middleware';

const OUTPUT = Array.from({ length: 60 }, (_, n) => `src/module_${n}.go: func Handler${n}() error`).join('\n');

function refIdOf(output: string): string {
  return `to_${createHash('sha256').update(output, 'utf8').digest('hex').slice(0, 32)}`;
}

function options(toolCallId: string): ToolExecutionOptions<unknown> {
  return { toolCallId, messages: [], context: undefined };
}

describe('contributedAiTools', () => {
  let context: CtxkitLanguageModelMiddleware;

  beforeEach(async () => {
    context = ctxkitMiddleware({
      pluginId: 'std-tool-output-cache-strategy',
      config: { maxContextTokens: 16000 },
      sessionId: 'coding-1',
    });
  });

  afterEach(() => context.dispose());

  it("describes each of the strategy's tools with its own name, description and JSON Schema", async () => {
    const tools = await context.tools();
    const manager = await context.getManager();
    for (const contributed of manager.contributedTools!()) {
      const { name, description, parameters } = contributed.definition.function;
      const converted = tools[name]!;
      expect(converted.description).toBe(description);
      const standard = (
        converted.inputSchema as unknown as { '~standard': { jsonSchema: { input(options: object): unknown } } }
      )['~standard'];
      expect(standard.jsonSchema.input({ target: 'draft-07' })).toEqual(parameters);
    }
  });

  it(
    'executes through the strategy: a cached output is read back by its ref, an unknown ref is an error for the ' +
      'model',
    async () => {
      const history: ChatMessage[] = [
        { role: 'user', content: 'List the handlers.' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id: 'call_1',
              type: 'function',
              function: { name: 'execute_bash', arguments: '{"command":"grep -rn Handler src"}' },
            },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: OUTPUT },
        { role: 'assistant', content: 'There are 60 handlers.' },
      ];
      await (await context.getManager()).onTurnComplete(history);
      const read = (await context.tools()).tool_output_cache!.execute!(
        { ref_id: refIdOf(OUTPUT), offset: 1, limit: 3 },
        options('call_2'),
      );
      expect(await read).toMatch(
        new RegExp(
          `^\\[tool_output_cache ref=${refIdOf(OUTPUT)}: lines 1-3 of 60[^\\n]*\\n\\s*1\\tsrc/module_0\\.go: func ` +
            `Handler0\\(\\) error\\n\\s*2\\tsrc/module_1\\.go`,
        ),
      );

      const missing = await Promise.resolve(
        (await context.tools()).tool_output_cache!.execute!(
          { ref_id: 'to_00000000000000000000000000000000' },
          options('call_3'),
        ),
      ).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(CtxkitError.isInstance(missing) && missing.code).toBe(ErrorCodes.TOOL_OUTPUT_REF_NOT_FOUND);
    },
  );

  it("lets a tool of yours hide the strategy's tool of the same name, and says so", async () => {
    const warnings: string[] = [];
    (await context.getAgent()).events.on('strategy-warning', (event) => warnings.push(event.message));
    const mine = {
      description: 'My own cache.',
      inputSchema: (await context.tools()).compact!.inputSchema,
      execute: async () => 'mine',
    };
    const tools = await context.tools({ compact: mine });
    expect(tools.compact).toBe(mine);
    expect(warnings).toEqual(['The strategy\'s tool "compact" is hidden by a tool of the same name.']);
  });
});
