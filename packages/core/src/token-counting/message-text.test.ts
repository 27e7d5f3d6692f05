import type { AssistantMessage } from '../contracts/chat-message';
import { HeuristicTokenCounter } from './heuristic-counter';
import { messageText } from './message-text';

const call = { id: 'toolu_1', type: 'function' as const, function: { name: 'search', arguments: '{"q":"HAT039"}' } };

describe('messageText', () => {
  it('counts the reasoning each provider is sent back, never a signature', () => {
    const anthropic: AssistantMessage = {
      role: 'assistant',
      content: null,
      tool_calls: [call],
      reasoning: [
        {
          provider: 'anthropic',
          data: { type: 'thinking', thinking: 'The user wants flight HAT039.', signature: 'EqQBCkYIARgCKkCSIG' },
        },
        { provider: 'anthropic', data: { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix' } },
      ],
    };
    const text = messageText(anthropic);
    expect(text).toContain('The user wants flight HAT039.');
    expect(text).toContain('EmwKAhgBEgy3va3pzix');
    expect(text).not.toContain('EqQBCkYIARgCKkCSIG');

    const openai: AssistantMessage = {
      role: 'assistant',
      content: null,
      tool_calls: [call],
      reasoning: [
        {
          provider: 'openai',
          data: {
            type: 'reasoning',
            id: 'rs_1',
            summary: [{ type: 'summary_text', text: 'Look the flight up.' }],
            encrypted_content: 'gAAAAB',
          },
        },
      ],
    };
    expect(messageText(openai)).toContain('Look the flight up.\ngAAAAB');
    expect(messageText(openai)).not.toContain('rs_1');
  });

  it(
    'counts a compaction block or item by what goes back: its summary and encrypted content, never its signature ' +
      'or id',
    () => {
      const anthropic: AssistantMessage = {
        role: 'assistant',
        content: null,
        reasoning: [
          {
            provider: 'anthropic',
            data: {
              type: 'compaction',
              content: 'Booked HAT039 for Mia.',
              encrypted_content: 'ZW5jcnlwdGVk',
              signature: 'EqQBCompSig',
            },
          },
        ],
      };
      expect(messageText(anthropic)).toBe('\nBooked HAT039 for Mia.\nZW5jcnlwdGVk');
      const failed: AssistantMessage = {
        role: 'assistant',
        content: null,
        reasoning: [{ provider: 'anthropic', data: { type: 'compaction', content: null, encrypted_content: null } }],
      };
      expect(messageText(failed)).toBe('');
      const openai: AssistantMessage = {
        role: 'assistant',
        content: null,
        reasoning: [
          { provider: 'openai', data: { type: 'compaction', id: 'cmp_1', encrypted_content: 'gAAAAcompact' } },
        ],
      };
      expect(messageText(openai)).toBe('\ngAAAAcompact');
    },
  );

  it('counts an OpenAI reasoning item in the Agents SDK shape by its texts and encrypted content', () => {
    const agents: AssistantMessage = {
      role: 'assistant',
      content: null,
      reasoning: [
        {
          provider: 'openai',
          data: {
            type: 'reasoning',
            id: 'rs_2',
            content: [{ type: 'input_text', text: 'Check the fare.' }],
            providerData: { encrypted_content: 'gAAAAagents' },
          },
        },
      ],
    };
    expect(messageText(agents)).toBe('\nCheck the fare.\ngAAAAagents');
  });

  it(
    'does not count reasoning_content, which the chat format does not send back, and counts unknown items ' + 'whole',
    () => {
      const compatible: AssistantMessage = {
        role: 'assistant',
        content: 'Done.',
        reasoning: [{ provider: 'openai-compatible', data: { reasoning_content: 'long chain of thought' } }],
      };
      expect(messageText(compatible)).toBe('Done.');
      const other: AssistantMessage = {
        role: 'assistant',
        content: 'Done.',
        reasoning: [{ provider: 'google', data: { thoughtSignature: 'c2lnbmF0dXJl' } }],
      };
      expect(messageText(other)).toContain('c2lnbmF0dXJl');
      const counter = new HeuristicTokenCounter('gpt-4o');
      expect(counter.countMessage(other)).toBeGreaterThan(
        counter.countMessage({ role: 'assistant', content: 'Done.' }),
      );
    },
  );
});
