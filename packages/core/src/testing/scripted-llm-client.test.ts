import type { ChatMessage } from '../contracts/chat-message';
import { CtxkitError } from '../errors/ctxkit-error';
import { ErrorCodes } from '../errors/error-codes';
import { LLMResponseError } from '../errors/llm-response-error';
import { LLMTimeoutError } from '../errors/llm-timeout-error';
import { ScriptedLLMClient } from './scripted-llm-client';

const ask = (text: string): { messages: ChatMessage[] } => ({ messages: [{ role: 'user', content: text }] });

describe('ScriptedLLMClient', () => {
  describe('#constructor', () => {
    it('is an offline client named scripted', () => {
      const client = new ScriptedLLMClient(['hi']);
      expect(client.name).toBe('scripted');
      expect(client.offline).toBe(true);
      expect(client.defaultModel).toBe('scripted-model');
    });

    it('accepts a name and default model', () => {
      const client = new ScriptedLLMClient([], { name: 'fake', defaultModel: 'gpt-4o-mini' });
      expect(client.name).toBe('fake');
      expect(client.defaultModel).toBe('gpt-4o-mini');
    });
  });

  describe('#complete', () => {
    it('answers a string step as assistant text', async () => {
      const client = new ScriptedLLMClient(['hello there']);
      const answer = await client.complete(ask('hi'));
      expect(answer.message).toEqual({ role: 'assistant', content: 'hello there' });
      expect(answer.text).toBe('hello there');
      expect(answer.finishReason).toBe('stop');
      expect(answer.model).toBe('scripted-model');
    });

    it('answers steps in order', async () => {
      const client = new ScriptedLLMClient(['one', 'two']);
      expect((await client.complete(ask('a'))).text).toBe('one');
      expect((await client.complete(ask('b'))).text).toBe('two');
      expect(client.remaining).toBe(0);
    });

    it('answers a partial assistant message with tool calls', async () => {
      const client = new ScriptedLLMClient([
        { tool_calls: [{ id: 'c1', type: 'function', function: { name: 'search', arguments: '{"q":"x"}' } }] },
      ]);
      const answer = await client.complete(ask('find x'));
      expect(answer.message.role).toBe('assistant');
      expect(answer.message.content).toBeNull();
      expect(answer.message.tool_calls?.[0]?.function.name).toBe('search');
      expect(answer.text).toBe('');
      expect(answer.finishReason).toBe('tool_calls');
    });

    it('returns a fresh copy of a step message each time', async () => {
      const step = {
        content: 'same',
        tool_calls: [{ id: 'c1', type: 'function' as const, function: { name: 't', arguments: '{}' } }],
      };
      const client = new ScriptedLLMClient([step, step]);
      const first = await client.complete(ask('a'));
      first.message.tool_calls!.push({ id: 'c2', type: 'function', function: { name: 'u', arguments: '{}' } });
      const second = await client.complete(ask('b'));
      expect(second.message.tool_calls).toHaveLength(1);
      expect(step.tool_calls).toHaveLength(1);
    });

    it('throws an Error step as it is', async () => {
      const failure = new LLMResponseError('no summary tags', { client: 'scripted' });
      const client = new ScriptedLLMClient([failure, 'after']);
      await expect(client.complete(ask('a'))).rejects.toBe(failure);
      expect((await client.complete(ask('b'))).text).toBe('after');
    });

    it('answers a function step from the request', async () => {
      const client = new ScriptedLLMClient([
        (request, index) => `echo ${index}: ${String(request.messages[request.messages.length - 1]?.content)}`,
      ]);
      expect((await client.complete(ask('ping'))).text).toBe('echo 0: ping');
    });

    it('resolves a function that returns another step kind', async () => {
      const client = new ScriptedLLMClient([
        async () => ({ reply: 'wrapped', usage: { input_tokens: 7, output_tokens: 3 } }),
      ]);
      const answer = await client.complete(ask('a'));
      expect(answer.text).toBe('wrapped');
      expect(answer.usage.total_tokens).toBe(10);
    });

    it('reports the usage given with a step', async () => {
      const client = new ScriptedLLMClient([
        { reply: 'x', usage: { input_tokens: 100, output_tokens: 20, cache_read_tokens: 5 } },
      ]);
      const { usage } = await client.complete(ask('a'));
      expect(usage).toEqual({
        input_tokens: 100,
        output_tokens: 20,
        cache_creation_tokens: 0,
        cache_read_tokens: 5,
        total_tokens: 125,
      });
    });

    it('maps a provider usage shape with toTokenUsage', async () => {
      const client = new ScriptedLLMClient([
        {
          reply: 'x',
          usage: { prompt_tokens: 120, completion_tokens: 8, prompt_tokens_details: { cached_tokens: 20 } },
        },
      ]);
      const { usage } = await client.complete(ask('a'));
      expect(usage).toEqual({
        input_tokens: 100,
        output_tokens: 8,
        cache_creation_tokens: 0,
        cache_read_tokens: 20,
        total_tokens: 128,
      });
    });

    it('estimates usage from the request and the answer when none is given', async () => {
      const client = new ScriptedLLMClient(['a short answer', 'a short answer']);
      const small = await client.complete(ask('hi'));
      const big = await client.complete(ask('hi '.repeat(400)));
      expect(small.usage.input_tokens).toBeGreaterThan(0);
      expect(small.usage.output_tokens).toBeGreaterThan(0);
      expect(big.usage.input_tokens).toBeGreaterThan(small.usage.input_tokens + 250);
      expect(big.usage.total_tokens).toBe(big.usage.input_tokens + big.usage.output_tokens);
    });

    it('uses the model the request names', async () => {
      const client = new ScriptedLLMClient(['x']);
      expect((await client.complete({ ...ask('a'), model: 'gpt-4o-mini' })).model).toBe('gpt-4o-mini');
    });

    it('answers a delayed step after its delay', async () => {
      const client = new ScriptedLLMClient([{ delayMs: 5, reply: 'slow' }]);
      expect((await client.complete(ask('a'))).text).toBe('slow');
    });

    it('rejects with LLMTimeoutError when timeoutMs is shorter than the delay', async () => {
      const client = new ScriptedLLMClient([{ delayMs: 10_000, reply: 'never' }]);
      const error = await client.complete({ ...ask('a'), timeoutMs: 5 }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(LLMTimeoutError);
      expect((error as CtxkitError).code).toBe(ErrorCodes.LLM_TIMEOUT);
      expect((error as CtxkitError).details.timeoutMs).toBe(5);
    });

    it('rejects with LLMTimeoutError when the signal aborts', async () => {
      const client = new ScriptedLLMClient([{ delayMs: 10_000, reply: 'never' }]);
      const controller = new AbortController();
      const pending = client.complete({ ...ask('a'), signal: controller.signal });
      controller.abort();
      await expect(pending).rejects.toBeInstanceOf(LLMTimeoutError);
    });

    it('rejects at once when the signal is already aborted', async () => {
      const client = new ScriptedLLMClient([{ delayMs: 10_000, reply: 'never' }]);
      await expect(client.complete({ ...ask('a'), signal: AbortSignal.abort() })).rejects.toBeInstanceOf(
        LLMTimeoutError,
      );
    });

    it('throws a clear typed error when the script is exhausted', async () => {
      const client = new ScriptedLLMClient(['only']);
      await client.complete(ask('a'));
      const error = await client.complete(ask('b')).catch((e: unknown) => e);
      expect(CtxkitError.isInstance(error)).toBe(true);
      expect((error as CtxkitError).code).toBe(ErrorCodes.LLM_REQUEST_FAILED);
      expect((error as Error).message).toMatch(/script exhausted: call 2 but the script has 1 step/);
      expect((error as CtxkitError).fix).toMatch(/repeatLast/);
    });

    it('repeats the last step when repeatLast is on', async () => {
      const client = new ScriptedLLMClient(['first', 'again'], { repeatLast: true });
      const texts = [];
      for (let i = 0; i < 4; i++) texts.push((await client.complete(ask(String(i)))).text);
      expect(texts).toEqual(['first', 'again', 'again', 'again']);
    });

    it('accepts steps pushed after construction', async () => {
      const client = new ScriptedLLMClient();
      client.push('late');
      expect((await client.complete(ask('a'))).text).toBe('late');
    });
  });

  describe('#requests', () => {
    it('records deep copies of every request', async () => {
      const client = new ScriptedLLMClient(['x', 'y']);
      const messages: ChatMessage[] = [{ role: 'user', content: 'original' }];
      await client.complete({ messages, tools: null, maxOutputTokens: 50 });
      messages.push({ role: 'assistant', content: 'later' });
      (messages[0] as { content: string }).content = 'changed';
      await client.complete({ messages, signal: new AbortController().signal });
      expect(client.requests[0]).toEqual({
        messages: [{ role: 'user', content: 'original' }],
        tools: null,
        maxOutputTokens: 50,
        hadSignal: false,
      });
      expect(client.requests[1]?.messages).toHaveLength(2);
      expect(client.requests[1]?.hadSignal).toBe(true);
      expect(client.callCount).toBe(2);
      expect(client.lastRequest).toBe(client.requests[1]);
    });

    it('records requests that end in an error', async () => {
      const client = new ScriptedLLMClient([new Error('boom')]);
      await expect(client.complete(ask('a'))).rejects.toThrow('boom');
      expect(client.requests).toHaveLength(1);
    });
  });
});
