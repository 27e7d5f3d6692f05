import { type ChatMessage, createTokenCounter, LLMResponseError } from '@ctxkit/core';
import { contentText } from '@ctxkit/core/strategy-kit';
import { ScriptedLLMClient } from '@ctxkit/core/testing';

import { LLMSummarizer } from './llm-summarizer';
import { retainedItems } from './retained-items';
import { dominantScript } from './text-script';

const counter = createTokenCounter({ model: 'gpt-4o' });

const booking: ChatMessage[] = [
  {
    role: 'user',
    content: 'Please move reservation 4WQ150 to 2024-05-17. Keep <retain>window seat, aisle for Ana</retain>.',
  },
  {
    role: 'assistant',
    content:
      'Reservation 4WQ150 is on flight HAT039; the change costs 120 dollars. Details: https://example.com/res/4WQ150',
  },
  { role: 'user', content: 'Fine, charge card ending 4455.' },
];

const japanese: ChatMessage[] = [
  { role: 'user', content: '予約番号 ZFA04Y の便を五月十七日に変更したいです。窓側の席を希望します。' },
  { role: 'assistant', content: '承知しました。予約 ZFA04Y を確認します。変更料金は 150 ドルです。' },
  { role: 'user', content: 'はい、お願いします。支払いは登録済みのカードでお願いします。' },
];

const input = (messages: ChatMessage[]) => ({
  previousSummary: null,
  messages,
  firstIndex: 4,
  maxTokens: 400,
  counter,
});

describe('summaries checked without another model call', () => {
  it('finds the identifiers and <retain> texts of the user and assistant messages, not of tool outputs', () => {
    const items = retainedItems([
      ...booking,
      { role: 'tool', tool_call_id: 'c1', content: 'ticket TKT9981234 issued' },
    ]).map((item) => item.text);
    expect(items).toEqual(
      expect.arrayContaining([
        'window seat, aisle for Ana',
        '4WQ150',
        '2024-05-17',
        'HAT039',
        '120',
        'https://example.com/res/4WQ150',
        '4455',
      ]),
    );
    expect(items).not.toContain('TKT9981234');
    expect(dominantScript(contentText(japanese[0]!.content))).toBe('japanese');
    expect(dominantScript('The booking ZFA04Y moves to May 17, window seat.')).toBe('latin');
  });

  it('accepts a summary that keeps every identifier, with a receipt', async () => {
    const complete =
      '<summary>Move 4WQ150 (flight HAT039) to 2024-05-17, fee 120, card 4455, https://example.com/res/4WQ150; ' +
      'window seat, aisle for Ana.</summary>';
    const client = new ScriptedLLMClient([complete]);
    const summarizer = new LLMSummarizer(client, { model: 'gpt-4o-mini' });
    await expect(summarizer.summarize(input(booking))).resolves.toContain('4WQ150');
    expect(client.requests).toHaveLength(1);
    expect(summarizer.lastReceipt).toMatchObject({
      covers: { from: 4, to: 7 },
      reprompted: false,
      putBack: [],
      script: 'latin',
    });
    expect(summarizer.lastReceipt!.kept).toContain('window seat, aisle for Ana');
    expect(summarizer.lastReceipt!.dropped).toEqual([]);
    expect(summarizer.lastReceipt!.unsupported).toEqual([]);
    expect(summarizer.lastReceipt!.tokens.folded).toBe(counter.countMessages(booking));
    expect(summarizer.lastReceipt!.tokens.summary).toBeLessThan(summarizer.lastReceipt!.tokens.folded);
  });

  it(
    'lists in the receipt what the summary dropped that it was not required to keep (tool outputs), still in the ' +
      'history',
    async () => {
      const withTool: ChatMessage[] = [
        ...booking,
        { role: 'tool', tool_call_id: 'c1', content: 'ticket TKT9981234 issued for 4WQ150' },
      ];
      const client = new ScriptedLLMClient([
        '<summary>Move 4WQ150 (flight HAT039) to 2024-05-17, fee 120, card 4455, https://example.com/res/4WQ150; ' +
          'window seat, aisle for Ana.</summary>',
      ]);
      const summarizer = new LLMSummarizer(client, { model: 'gpt-4o-mini' });
      await summarizer.summarize(input(withTool));
      expect(summarizer.lastReceipt!.dropped).toEqual(['TKT9981234']);
      expect(summarizer.lastReceipt!.kept).not.toContain('TKT9981234');
    },
  );

  it(
    'lists in the receipt what the summary claims that neither the turns nor the previous summary hold, and not ' +
      'what they do',
    async () => {
      const claims =
        '<summary>Move 4WQ150 (flight HAT039) to 2024-05-17, fee 120, card 4455, https://example.com/res/4WQ150; ' +
        'window seat, aisle for Ana.\n' +
        '- The user must keep the window seat.\n- Earlier: loyalty number QX77120.\n- The user never flies before ' +
        '2024-05-01.</summary>';
      const summarizer = new LLMSummarizer(new ScriptedLLMClient([claims]), { model: 'gpt-4o-mini' });
      await summarizer.summarize({ ...input(booking), previousSummary: 'Earlier: loyalty number QX77120.' });
      expect(summarizer.lastReceipt!.unsupported).toEqual(['2024-05-01', 'The user never flies before 2024-05-01.']);
    },
  );

  it('re-prompts once with what a summary left out, and accepts the answer that puts it back', async () => {
    const client = new ScriptedLLMClient([
      '<summary>The user moves a reservation to a later date and pays by card; window seat, aisle for Ana.</summary>',
      '<summary>Move 4WQ150 (flight HAT039) to 2024-05-17, fee 120, card 4455, https://example.com/res/4WQ150; ' +
        'window seat, aisle for Ana.</summary>',
    ]);
    const summarizer = new LLMSummarizer(client, { model: 'gpt-4o-mini' });
    const summary = await summarizer.summarize(input(booking));
    expect(summary).toContain('2024-05-17');
    expect(client.requests).toHaveLength(2);
    const followUp = contentText(client.requests[1]!.messages.at(-1)!.content);
    expect(followUp).toMatch(/Include each of these exactly as written/);
    expect(followUp).toContain('"4WQ150"');
    expect(client.requests[1]!.messages.at(-2)).toMatchObject({ role: 'assistant' });
    expect(summarizer.lastReceipt).toMatchObject({ reprompted: true });
    expect(summarizer.lastReceipt!.putBack).toEqual(expect.arrayContaining(['4WQ150', '2024-05-17', 'HAT039']));
  });

  it('refuses a summary of a Japanese conversation written in English twice: the turns stay verbatim', async () => {
    const english =
      '<summary>The customer wants to move booking ZFA04Y to May 17th, window seat; the fee is 150 dollars, paid ' +
      'with the saved card.</summary>';
    const client = new ScriptedLLMClient([english, english]);
    const summarizer = new LLMSummarizer(client, { model: 'gpt-4o-mini' });
    const refused = summarizer.summarize(input(japanese));
    await expect(refused).rejects.toBeInstanceOf(LLMResponseError);
    await expect(refused).rejects.toThrow(/not written in the conversation's japanese script/);
    expect(client.requests).toHaveLength(2);
    expect(contentText(client.requests[1]!.messages.at(-1)!.content)).toMatch(/Write it in Japanese/);
  });

  it('accepts a Japanese summary of a Japanese conversation, and checks nothing when turned off', async () => {
    const client = new ScriptedLLMClient([
      '<summary>予約 ZFA04Y を五月十七日に変更。窓側の席を希望。変更料金 150 ドル、登録済みのカードで支払い。</summary>',
    ]);
    const summarizer = new LLMSummarizer(client, { model: 'gpt-4o-mini' });
    await expect(summarizer.summarize(input(japanese))).resolves.toContain('ZFA04Y');
    expect(summarizer.lastReceipt).toMatchObject({ script: 'japanese', reprompted: false });
    const unchecked = new LLMSummarizer(new ScriptedLLMClient(['<summary>Short.</summary>']), {
      model: 'gpt-4o-mini',
      checkSummaries: false,
    });
    await expect(unchecked.summarize(input(japanese))).resolves.toBe('Short.');
  });

  it(
    "writes in a configured script instead of the conversation's: asks for it, checks it, re-prompts once, then " +
      'refuses',
    async () => {
      const english =
        '<summary>The customer wants to move booking ZFA04Y to May 17th, window seat; the fee is 150 dollars, paid ' +
        'with the saved card.</summary>';
      const japaneseSummary =
        '<summary>予約 ZFA04Y を五月十七日に変更。窓側の席を希望。変更料金 150 ドル、登録済みのカードで支払い。</summary>';
      // A Japanese conversation summarized in English, as configured: accepted at once.
      const accepting = new ScriptedLLMClient([english]);
      const inEnglish = new LLMSummarizer(accepting, { model: 'gpt-4o-mini', script: 'latin' });
      await expect(inEnglish.summarize(input(japanese))).resolves.toContain('ZFA04Y');
      expect(contentText(accepting.requests[0]!.messages.at(-1)!.content)).toMatch(
        /in the Latin alphabet \(identifiers stay as written\)\.$/,
      );
      expect(inEnglish.lastReceipt).toMatchObject({ script: 'latin', reprompted: false });
      // The conversation's own script is now the wrong one: re-prompted once, then refused.
      const refusing = new ScriptedLLMClient([japaneseSummary, japaneseSummary]);
      const strict = new LLMSummarizer(refusing, { model: 'gpt-4o-mini', script: 'latin' });
      await expect(strict.summarize(input(japanese))).rejects.toThrow(/not written in the configured latin script/);
      expect(contentText(refusing.requests[1]!.messages.at(-1)!.content)).toMatch(
        /Write it in the Latin alphabet, as configured/,
      );
    },
  );
});
