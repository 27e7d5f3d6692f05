import { type ChatMessage, createTokenCounter } from '@ctxkit/core';

import { OfflineSummarizer } from './offline-summarizer';
import { parseSummary } from './summary-layout';

const counter = createTokenCounter({ model: 'gpt-4o' });
const summarizer = new OfflineSummarizer();

const FILLER = [
  'Wow, that sounds great!',
  'Haha, totally agree with you.',
  'That is so nice to hear.',
  'Thanks for sharing that with me.',
];
const PLACES = ['Boston', 'Lisbon', 'Osaka', 'Denver', 'Toronto', 'Nairobi', 'Vienna', 'Santiago'];

/** A synthetic two-person chat over many sessions, each opening with its date line. */
function sessions(count: number, turnsPerSession: number): ChatMessage[] {
  const messages: ChatMessage[] = [];
  for (let session = 1; session <= count; session++) {
    const day = 1 + ((session * 3) % 27);
    const month = [
      'January',
      'February',
      'March',
      'April',
      'May',
      'June',
      'July',
      'August',
      'September',
      'October',
      'November',
      'December',
    ][session % 12]!;
    for (let turn = 0; turn < turnsPerSession; turn++) {
      const opening = turn === 0 ? `[Session ${session} · 2:15 pm on ${day} ${month}, 2023]\n` : '';
      const place = PLACES[(session + turn) % PLACES.length]!;
      const fact =
        turn === 1
          ? `I visited ${place} with my cousin Priya and booked room ${100 + session * 7 + turn}.`
          : FILLER[(session + turn) % FILLER.length]!;
      messages.push({ role: 'user', content: `${opening}Ana: ${fact} ${FILLER[turn % FILLER.length]}` });
      messages.push({ role: 'assistant', content: `Ben: ${FILLER[(turn + 1) % FILLER.length]} What did you do next?` });
    }
  }
  return messages;
}

/** Folds a history in batches, the way the strategy does, and returns every summary. */
function foldAll(history: readonly ChatMessage[], batch: number, maxTokens: number): string[] {
  const summaries: string[] = [];
  let summary: string | null = null;
  for (let start = 0; start < history.length; start += batch) {
    summary = summarizer.summarizeSync({
      previousSummary: summary,
      messages: history.slice(start, start + batch),
      firstIndex: start,
      maxTokens,
      counter,
    });
    summaries.push(summary);
  }
  return summaries;
}

describe('OfflineSummarizer on multi-session chats', () => {
  it('files kept lines under the date of their session, also for batches that start mid-session', () => {
    const history = sessions(3, 6);
    const summary = foldAll(history, 4, 600).at(-1)!;
    for (const date of ['[4 February, 2023]', '[7 March, 2023]', '[10 April, 2023]']) expect(summary).toContain(date);
    const contents = parseSummary(summary);
    // Session 2 (7 March) is where Ana visited Denver.
    const denver = contents.units.find((unit) => unit.text.includes('Denver'));
    expect(denver?.date).toBe('7 March, 2023');
    expect(contents.sessionDate).toBe('10 April, 2023');
    // The session opening line itself is not kept as text.
    expect(summary).not.toContain('Session 2 ·');
  });

  it('keeps a line of every session while the cap allows, so each session date stays answerable', () => {
    const history = sessions(12, 5);
    const summary = foldAll(history, 6, 700).at(-1)!;
    const dates = parseSummary(summary).units.map((unit) => unit.date);
    expect(new Set(dates).size).toBe(12);
  });

  it('adds the calendar meaning of relative dates, resolved against the session date', () => {
    const history: ChatMessage[] = [
      {
        role: 'user',
        content: '[Session 1 · 4:10 pm on 11 May, 2023]\nAna: I went to a chess club yesterday and it was fun.',
      },
      { role: 'assistant', content: 'Ben: I fixed my bike last Saturday and sold my old car last year.' },
      { role: 'user', content: 'Ana: My friends and I went camping last week, two days ago we came back.' },
    ];
    const summary = summarizer.summarizeSync({
      previousSummary: null,
      messages: history,
      firstIndex: 0,
      maxTokens: 300,
      counter,
    });
    expect(summary).toContain('yesterday [10 May, 2023]');
    expect(summary).toContain('last Saturday [the Saturday before 11 May, 2023]');
    expect(summary).toContain('last year [2022]');
    expect(summary).toContain('last week [the week before 11 May, 2023]');
    expect(summary).toContain('two days ago [two days before 11 May, 2023]');
  });

  it('labels each sentence with the speaker named at the start of the message', () => {
    const history: ChatMessage[] = [
      { role: 'assistant', content: 'Ben: We adopted a puppy named Pip. He loves the beach at the lake shore.' },
    ];
    const summary = summarizer.summarizeSync({
      previousSummary: null,
      messages: history,
      firstIndex: 0,
      maxTokens: 200,
      counter,
    });
    expect(summary).toContain('Ben: We adopted a puppy named Pip.');
    expect(summary).toContain('Ben: He loves the beach at the lake shore.');
  });

  it('never repeats a line, however often it is said or re-folded', () => {
    const repeated: ChatMessage[] = [];
    for (let i = 0; i < 10; i++) {
      repeated.push({ role: 'user', content: 'My sister lives in Boston and works at Fidelity.' });
      repeated.push({ role: 'assistant', content: 'Oh nice, so your sister lives in Boston and works at Fidelity!' });
    }
    for (const summary of foldAll(repeated, 4, 400)) {
      const lines = summary.split('\n').filter((line) => line.includes('Boston'));
      expect(lines).toHaveLength(1);
    }
  });

  it('keeps near-duplicates apart when they differ in an id, date or number', () => {
    const history: ChatMessage[] = [
      { role: 'user', content: 'Please move flight HAT136 on 2024-05-20 to the morning.' },
      { role: 'user', content: 'Please move flight HAT039 on 2024-05-20 to the morning.' },
    ];
    const summary = summarizer.summarizeSync({
      previousSummary: null,
      messages: history,
      firstIndex: 0,
      maxTokens: 200,
      counter,
    });
    expect(summary).toContain('HAT136');
    expect(summary).toContain('HAT039');
  });

  it('re-folds within its cap however long the conversation grows', () => {
    const history = sessions(40, 6);
    for (const cap of [200, 600, 1600]) {
      const summaries = foldAll(history, 6, cap);
      for (const summary of summaries) expect(counter.count(summary)).toBeLessThanOrEqual(cap);
      // The cap is used, not left empty, once there is enough to say (this chat has about 1,000 tokens of distinct
      // lines).
      expect(counter.count(summaries.at(-1)!)).toBeGreaterThan(Math.min(cap, 1000) * 0.7);
      // A mild recency preference: the newest session is in the summary.
      expect(summaries.at(-1)!).toContain(parseSummary(summaries.at(-1)!).sessionDate!);
    }
  });

  it('prefers the speaker’s statements about themselves over questions and small talk', () => {
    const history: ChatMessage[] = [
      { role: 'user', content: 'Wow, what a lovely afternoon it has been for everyone here today.' },
      { role: 'assistant', content: 'Where do you think people usually go on vacation these days?' },
      { role: 'user', content: 'I adopted a dog named Biscuit in March.' },
      { role: 'assistant', content: 'It is really nice weather outside this afternoon, honestly.' },
    ];
    const summary = summarizer.summarizeSync({
      previousSummary: null,
      messages: history,
      firstIndex: 0,
      maxTokens: 40,
      counter,
    });
    expect(summary).toContain('I adopted a dog named Biscuit in March.');
    expect(summary).not.toContain('Where do you think');
  });

  it('is deterministic, fold after fold', () => {
    const history = sessions(8, 5);
    expect(foldAll(history, 5, 500)).toEqual(foldAll(history, 5, 500));
  });

  it('folds a long chat quickly', () => {
    const history = sessions(50, 7);
    const started = performance.now();
    foldAll(history, 8, 1600);
    // Hundreds of folds; generous for slow CI machines (it takes well under a second outside jest).
    expect(performance.now() - started).toBeLessThan(15_000);
  });

  it('handles Japanese text: sentences, dates and verbatim identifiers within the cap', () => {
    const history: ChatMessage[] = [
      { role: 'user', content: '[2024年5月20日]\n予約番号はABC123です。東京から大阪への便を変更したいです。' },
      { role: 'assistant', content: '承知しました。予約ABC123を確認します。ほかにご要望はありますか？' },
      { role: 'user', content: '私の妹は札幌に住んでいます。昨日、ホテルを予約しました。' },
    ];
    for (const cap of [30, 60, 200]) {
      const summary = summarizer.summarizeSync({
        previousSummary: null,
        messages: history,
        firstIndex: 0,
        maxTokens: cap,
        counter,
      });
      expect(counter.count(summary)).toBeLessThanOrEqual(cap);
    }
    const summary = summarizer.summarizeSync({
      previousSummary: null,
      messages: history,
      firstIndex: 0,
      maxTokens: 200,
      counter,
    });
    expect(summary).toContain('[2024年5月20日]');
    expect(summary).toContain('予約番号はABC123です。');
    expect(summary).toContain('私の妹は札幌に住んでいます。');
    expect(summary).toContain('昨日 [2024年5月19日]');
    // Re-folding the summary with nothing new keeps its lines once each.
    const again = summarizer.summarizeSync({
      previousSummary: summary,
      messages: [],
      firstIndex: 3,
      maxTokens: 200,
      counter,
    });
    expect(again.split('\n').filter((line) => line.includes('予約番号はABC123です。'))).toHaveLength(1);
  });
});
