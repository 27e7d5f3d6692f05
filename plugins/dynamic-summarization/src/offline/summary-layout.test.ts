import { keyValuesLine, namesLine, parseSummary, renderSummaryBody, summaryHeader } from './summary-layout';

describe('summary layout', () => {
  it('round-trips header, index lines, date groups and labelled lines', () => {
    const units = [
      { label: 'Ana', text: 'I went to a chess club yesterday [7 May, 2023].', date: '8 May, 2023' },
      { label: 'tool get_user_details', text: 'user_id: mia_li_3668', date: '8 May, 2023' },
      { label: 'user', text: 'Book HAT136.', date: '25 May, 2023' },
    ];
    const text = [
      summaryHeader(41, '25 May, 2023'),
      ...renderSummaryBody([keyValuesLine(['RES1001']), namesLine(['Rome', 'Paris'])], units),
    ].join('\n');
    expect(text.split('\n')).toEqual([
      '[offline extractive summarizer (no LLM): history messages 0-41; session date 25 May, 2023]',
      'Key values: RES1001',
      'Names: Rome, Paris',
      '[8 May, 2023]',
      'Ana: I went to a chess club yesterday [7 May, 2023].',
      'tool get_user_details: user_id: mia_li_3668',
      '[25 May, 2023]',
      'user: Book HAT136.',
    ]);
    const parsed = parseSummary(text);
    expect(parsed.sessionDate).toBe('25 May, 2023');
    expect(parsed.keyValues).toEqual(['RES1001']);
    expect(parsed.names).toEqual(['Rome', 'Paris']);
    expect(parsed.units.map(({ label, text: line, date }) => ({ label, text: line, date }))).toEqual(units);
    expect(parsed.units.map((unit) => unit.role)).toEqual(['summary', 'tool', 'user']);
  });

  it('reads lines of earlier versions and of other summarizers', () => {
    const parsed = parseSummary('- user #3: Book HAT136.\n- The user wants a refund.\n\nsomething else');
    expect(parsed.units.map((unit) => [unit.label, unit.text])).toEqual([
      ['user', 'Book HAT136.'],
      ['', 'The user wants a refund.'],
      ['', 'something else'],
    ]);
  });
});
