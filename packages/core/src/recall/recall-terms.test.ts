import { recallTerm, recallTermsOf, recallTokens } from './recall-terms';

describe('recall terms', () => {
  describe('recallTokens', () => {
    it('splits words in any script and indexes scripts without spaces as character pairs', () => {
      expect(recallTokens('Dr. Patel’s clinic, room 12')).toEqual(['Dr', 'Patel', 's', 'clinic', 'room', '12']);
      expect(recallTokens('東京の天気')).toEqual(['東京', '京の', 'の天', '天気']);
      expect(recallTokens('build東京test')).toEqual(['build', '東京', 'test']);
    });
  });

  describe('recallTerm', () => {
    it('lowercases, leaves English stop words out and stems English words', () => {
      expect(recallTerm('Doctors')).toBe(recallTerm('doctor'));
      expect(recallTerm('rollercoasters')).toBe(recallTerm('rollercoaster'));
      expect(recallTerm('What')).toBeNull();
      expect(recallTerm('S61CZX')).toBe('s61czx');
    });
  });

  it('gives each distinct term once, in first-seen order', () => {
    expect(recallTermsOf('Running runs, the runner ran.')).toEqual(['run', 'runner', 'ran']);
  });
});
