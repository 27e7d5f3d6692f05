import { extractFinalTagBlock, parseCompactionReply } from './compact-messages';

describe('parseCompactionReply', () => {
  it('extracts the retain and summary blocks', () => {
    expect(parseCompactionReply('<retain>a</retain>\n<summary> b </summary>')).toEqual({ retain: 'a', summary: 'b' });
  });

  it('returns undefined without a non-empty summary', () => {
    expect(parseCompactionReply('<retain>a</retain>')).toBeUndefined();
    expect(parseCompactionReply('<summary>  </summary>')).toBeUndefined();
    expect(parseCompactionReply('<summary>cut off before the end')).toBeUndefined();
  });

  it('returns an empty retain when the reply has none', () => {
    expect(parseCompactionReply('<summary>s</summary>')).toEqual({ retain: '', summary: 's' });
  });
});

describe('extractFinalTagBlock', () => {
  it('takes the final block after a draft', () => {
    expect(extractFinalTagBlock('<summary>draft</summary> then <summary>final</summary>', 'summary')).toBe('final');
  });

  it('keeps a quoted closing tag inside the block', () => {
    expect(extractFinalTagBlock('<summary>the log said "</summary>" twice</summary>', 'summary')).toBe(
      'the log said "</summary>" twice',
    );
  });

  it('keeps a quoted HTML summary element inside the block', () => {
    expect(
      extractFinalTagBlock('<summary>the page has <summary>Details</summary> collapsed</summary>', 'summary'),
    ).toBe('the page has <summary>Details</summary> collapsed');
  });
});
