import 'reflect-metadata';

import * as path from 'node:path';

import { type ContextRuntime, createContextRuntime, ErrorCodes } from '@ctxkit/core';
import { ScriptedLLMClient } from '@ctxkit/core/testing';

import { Agent } from './agent';
import { createAgent } from './create-agent';

const pluginsDir = path.join(__dirname, '..', '..', '..', 'plugins');

describe('createAgent', () => {
  let runtime: ContextRuntime;

  beforeEach(async () => {
    runtime = await createContextRuntime({
      pluginDirs: [path.join(pluginsDir, 'dynamic-summarization')],
      discoverInstalled: false,
    });
  });

  describe('#createAgent', () => {
    it(
      'builds a kernel agent from plugin.json → loader → DI, and the strategy shapes what the model ' + 'receives',
      async () => {
        const handle = await runtime.loadAgent({
          id: 'novelist',
          model: 'gpt-4o',
          contextStrategy: {
            type: 'plugin',
            pluginId: 'std-summarization-strategy',
            config: { compressionModel: 'gpt-4o-mini', threshold: 2, batchTurns: 1, maxContextTokens: 4096 },
          },
        });
        // One client for the agent and its strategy: summaries are asked of the compression model by name.
        const model = new ScriptedLLMClient(
          [
            (request) =>
              request.model === 'gpt-4o-mini'
                ? '<summary>The user (id mia_li_3668) asked about bags and seats.</summary>'
                : `answer ${request.messages.filter((m) => m.role === 'user').length}`,
          ],
          { repeatLast: true },
        );
        const agent = createAgent(handle, { llm: model, systemPrompt: 'You are a helpful airline agent.' });
        expect(agent).toBeInstanceOf(Agent);
        // Turns of about 900 tokens: the window cannot hold them all, so the summary is what carries the oldest.
        const details = (
          'My booking has a connection through Denver, a checked bag and a stroller, and I travel with two ' +
          'children. '
        ).repeat(45);
        for (const question of ['I am mia_li_3668.', 'How many bags are free?', 'Can I pick a seat?', 'And meals?']) {
          await agent.run(`${question} ${details}`, { waitForIdle: true });
        }
        const turns = model.requests.filter((request) => request.model === 'gpt-4o');
        const summaries = model.requests.filter((request) => request.model === 'gpt-4o-mini');
        const last = turns[turns.length - 1]!;
        const text = last.messages.map((m) => (typeof m.content === 'string' ? m.content : '')).join('\n');
        expect(summaries.length).toBeGreaterThan(0);
        expect(turns).toHaveLength(4);
        expect(turns.length + summaries.length).toBe(model.requests.length);
        expect(text).toContain('mia_li_3668) asked about bags and seats');
        // Fewer than the four user turns are sent verbatim (the summary is a user message of its own).
        expect(
          last.messages.filter((m) => m.role === 'user' && !String(m.content).includes('<conversation_summary')).length,
        ).toBeLessThan(4);
        expect(agent.history()).toHaveLength(8);
        await handle.dispose();
      },
    );

    it(
      "names the manifest's model on every call and asks for the budget's answer reservation as " + 'maxOutputTokens',
      async () => {
        const handle = await runtime.loadAgent({
          id: 'support',
          model: 'gpt-4o-mini',
          contextStrategy: {
            type: 'plugin',
            pluginId: 'std-summarization-strategy',
            config: { summarizer: 'offline', maxContextTokens: 4096, reserveOutputTokens: 300 },
          },
        });
        const model = new ScriptedLLMClient(['one', 'two'], { defaultModel: 'client-default' });
        const agent = createAgent(handle, { llm: model });
        await agent.run('first');
        const result = await agent.run('second');
        expect(model.requests.map((request) => [request.model, request.maxOutputTokens])).toEqual([
          ['gpt-4o-mini', 300],
          ['gpt-4o-mini', 300],
        ]);
        expect(result.payloads[0]!.budget.reserveOutputTokens).toBe(300);
        // Explicit options win.
        const explicit = new ScriptedLLMClient(['three']);
        await createAgent(handle, { llm: explicit, model: 'gpt-4o', maxOutputTokens: 64 }).run('third', {
          sessionId: 'other',
        });
        expect(explicit.lastRequest).toMatchObject({ model: 'gpt-4o', maxOutputTokens: 64 });
        await handle.dispose();
      },
    );

    it('keeps sessions apart through the handle', async () => {
      const handle = await runtime.loadAgent({
        id: 'support',
        contextStrategy: { type: 'plugin', pluginId: 'std-summarization-strategy', config: {} },
      });
      const model = new ScriptedLLMClient(['a', 'b'], { repeatLast: true });
      const agent = createAgent(handle, { llm: model });
      await agent.run('first conversation');
      await agent.run('second conversation', { sessionId: 'conversation-42' });
      expect(model.requests[1]!.messages.map((m) => m.content)).not.toContain('first conversation');
      expect(agent.history('conversation-42').map((m) => m.content)).toEqual(['second conversation', 'b']);
      expect(handle.sessions()).toEqual(expect.arrayContaining(['default', 'conversation-42']));
      await handle.dispose();
    });

    it('refuses to build an agent without a model client', async () => {
      const handle = await runtime.loadAgent({
        id: 'offline',
        contextStrategy: { type: 'plugin', pluginId: 'std-summarization-strategy', config: {} },
      });
      expect(() => createAgent(handle)).toThrow(expect.objectContaining({ code: ErrorCodes.LLM_NOT_CONFIGURED }));
      await handle.dispose();
    });
  });
});
