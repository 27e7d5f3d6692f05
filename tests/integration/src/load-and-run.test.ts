import 'reflect-metadata';

import * as fs from 'node:fs';
import * as path from 'node:path';

import * as core from '@ctxkit/core';
import { type ChatMessage, CtxkitError, type IContextManager, type LLMPayload, validateManifest } from '@ctxkit/core';
import { findPayloadProblems } from '@ctxkit/core/strategy-kit';
import { freezeDeep, loadConversations } from '@ctxkit/core/testing';
import { generateHistory, SYNTHETIC_TOOLS } from '@ctxkit/core/testing/generators';

const CASES = path.join(__dirname, '..', 'cases');
const INVALID = path.join(CASES, 'invalid');

/** The runtime, read from the public API when it is there. */
interface RuntimeLike {
  listPlugins(): Array<{ id: string }>;
  loadAgent(
    manifest: string | Record<string, unknown>,
  ): Promise<{ contextManager: IContextManager; forSession(id: string): IContextManager; dispose(): Promise<void> }>;
}
const createContextRuntime = (
  core as unknown as { createContextRuntime?: (options?: Record<string, unknown>) => Promise<RuntimeLike> }
).createContextRuntime;

/** Pointer each schema-invalid manifest must be reported at. */
const SCHEMA_FAILURES: Record<string, string> = {
  'id-with-slash.plugin.json': '/id',
  'plugin-id-path-traversal.plugin.json': '/contextStrategy/pluginId',
  'strategy-type-not-plugin.plugin.json': '/contextStrategy/type',
  'missing-plugin-id.plugin.json': '/contextStrategy',
  'unknown-context-strategy-key.plugin.json': '/contextStrategy',
};

describe('agent manifests', () => {
  describe('#validateManifest', () => {
    for (const [file, pointer] of Object.entries(SCHEMA_FAILURES)) {
      it(`reports ${file} at ${pointer} with what was expected`, () => {
        const result = validateManifest(path.join(INVALID, file));
        expect(result.valid).toBe(false);
        const issue = result.errors.find((e) => e.pointer === pointer || e.pointer.startsWith(`${pointer}/`));
        expect(issue).toBeDefined();
        expect(issue!.file).toContain(file);
        expect(issue!.expected.length).toBeGreaterThan(0);
      });
    }

    it('accepts the manifests that only the runtime can reject, and the case manifests', () => {
      for (const file of ['unknown-plugin-id.plugin.json', 'config-violates-schema.plugin.json'])
        expect(validateManifest(path.join(INVALID, file)).valid).toBe(true);
      expect(validateManifest(path.join(CASES, 'sliding-window', 'agent.plugin.json')).errors).toEqual([]);
    });

    it('never throws on a file that is not JSON, reporting it instead', () => {
      const result = validateManifest(path.join(INVALID, 'README.md'));
      expect(result.valid).toBe(false);
      expect(result.errors.length).toBeGreaterThan(0);
    });
  });
});

function checkDoneWhen(payload: LLMPayload, history: ChatMessage[], limit: number, counter: core.ITokenCounter) {
  expect(counter.countMessages(payload.messages) + counter.countTools(payload.tools)).toBeLessThanOrEqual(limit);
  expect(findPayloadProblems(payload.messages)).toEqual([]);
  const newestUser = [...history].reverse().find((m) => m.role === 'user')!;
  expect(payload.messages).toContainEqual(newestUser);
}

if (createContextRuntime) {
  describe('createContextRuntime', () => {
    let runtime: RuntimeLike;
    beforeAll(async () => {
      runtime = await createContextRuntime();
    });

    it('rejects an unknown pluginId with a typed error naming the ids that exist', async () => {
      const error = await runtime
        .loadAgent(path.join(INVALID, 'unknown-plugin-id.plugin.json'))
        .catch((e: unknown) => e);
      expect(CtxkitError.isInstance(error)).toBe(true);
      expect((error as CtxkitError).code).toBe('CTXKIT_PLUGIN_NOT_FOUND');
      for (const plugin of runtime.listPlugins()) expect((error as CtxkitError).message).toContain(plugin.id);
    });

    const hasSlidingWindow = fs.existsSync(
      path.join(__dirname, '..', '..', '..', 'plugins', 'sliding-window', 'plugin.json'),
    );
    if (hasSlidingWindow) {
      it('rejects a config that violates the plugin schema with a typed error and its pointer', async () => {
        const error = await runtime
          .loadAgent(path.join(INVALID, 'config-violates-schema.plugin.json'))
          .catch((e: unknown) => e);
        expect(CtxkitError.isInstance(error)).toBe(true);
        expect((error as CtxkitError).code).toBe('CTXKIT_CONFIG_INVALID');
        expect((error as CtxkitError).message).toContain('maxContextTokens');
      });

      it(
        'keeps a 10,000-message history with tool calls within 8,000 tokens, valid, with the newest user message, ' +
          'input unchanged',
        async () => {
          const agent = await runtime.loadAgent(path.join(CASES, 'sliding-window', 'agent.plugin.json'));
          const history = freezeDeep(generateHistory({ messages: 10_000, seed: 11 }));
          const before = structuredClone(history);
          const payload = await agent
            .forSession('long-history')
            .composePayload('You are a helpful agent.', history, SYNTHETIC_TOOLS);
          checkDoneWhen(payload, history, 7000, core.createTokenCounter({ model: 'gpt-4o' }));
          expect(history).toEqual(before);
          await agent.dispose();
        },
      );

      it('replays tau-bench records through the loaded agent within budget', async () => {
        const expected = JSON.parse(fs.readFileSync(path.join(CASES, 'sliding-window', 'expected.json'), 'utf8')) as {
          records: number;
          maxPayloadTokens: number;
        };
        const agent = await runtime.loadAgent(path.join(CASES, 'sliding-window', 'agent.plugin.json'));
        for (const record of loadConversations('tau-bench-airline').slice(0, expected.records)) {
          const session = agent.forSession(record.id.replace(/[^a-z0-9-]/gi, '-'));
          const payload = await session.composePayload(record.systemPrompt, record.history, []);
          checkDoneWhen(
            payload,
            record.history,
            expected.maxPayloadTokens,
            core.createTokenCounter({ model: 'gpt-4o' }),
          );
          await session.onTurnComplete(record.history);
        }
        await agent.dispose();
      });

      it('rejects an unknown role with a typed error', async () => {
        const agent = await runtime.loadAgent(path.join(CASES, 'sliding-window', 'agent.plugin.json'));
        const history = [
          { role: 'user', content: 'hi' },
          { role: 'developer', content: 'x' },
        ] as unknown as ChatMessage[];
        const error = await agent.contextManager.composePayload('S', history, []).catch((e: unknown) => e);
        expect(CtxkitError.isInstance(error)).toBe(true);
        await agent.dispose();
      });
    }
  });
}
