import { PayloadText } from './evidence-presence';

describe(PayloadText.name, () => {
  const turn =
    'I graduated with a degree in Business Administration, which has definitely helped me in my new role at the firm.';

  it('holds a turn quoted verbatim, or with most of its words in runs of eight', () => {
    expect(new PayloadText(`[label]\nuser: ${turn}\n`).holdsTurn(turn)).toBe(true);
    expect(new PayloadText(turn.replace('Business', 'business').replace('firm.', 'firm!')).holdsTurn(turn)).toBe(true);
  });

  it('does not hold a turn cut to its first half, nor one whose words are scattered', () => {
    expect(new PayloadText(turn.slice(0, turn.length / 2)).holdsTurn(turn)).toBe(false);
    expect(new PayloadText(turn.split(' ').reverse().join(' ')).holdsTurn(turn)).toBe(false);
  });

  it('holds a short turn only word for word', () => {
    expect(new PayloadText('she said: my sister, she gave it').holdsTurn('My sister')).toBe(true);
    expect(new PayloadText('my sisters').holdsTurn('My sister')).toBe(false);
  });

  it('finds an answer as whole words, whatever the case and punctuation', () => {
    expect(new PayloadText('The code is 4417, she said.').holdsAnswer('4417')).toBe(true);
    expect(new PayloadText('The code is 44170.').holdsAnswer('4417')).toBe(false);
    expect(new PayloadText('Stayed in OAHU.').holdsAnswer('Oahu')).toBe(true);
  });
});
