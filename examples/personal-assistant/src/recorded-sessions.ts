/**
 * Four conversations of one user with the assistant, months apart, as they were recorded: the user's
 * messages and the assistant's answers. Only the first one says what the last question needs.
 */

/** One turn: what the user said and what the assistant answered. */
export interface RecordedTurn {
  user: string;
  assistant: string;
}

/** One conversation: its session id, when it started, its turns. */
export interface RecordedSession {
  sessionId: string;
  /** When the first turn was sent (ms since epoch, UTC). */
  startedAt: number;
  topic: string;
  turns: RecordedTurn[];
  /** What an earlier conversation said that this one's payloads should carry, when there is such a thing. */
  needsEarlier?: string;
}

export const RECORDED_SESSIONS: ReadonlyArray<RecordedSession> = [
  {
    sessionId: 'new-year-planning',
    startedAt: Date.UTC(2026, 0, 11, 18, 40),
    topic: 'planning the year',
    turns: [
      {
        user: 'Happy new year! Can you help me keep track of a few things this year?',
        assistant:
          'Happy new year! Gladly. Tell me what you would like to keep track of, such as dates, plans, ' +
          'people or things to buy, and I will help you come back to them when they matter.',
      },
      {
        user:
          'My sister Lena turns 40 on 14 June. For her birthday I want to get her a vintage Leica M6 film ' +
          'camera; she has wanted one since art school. The shop on Kastanienallee had one for about 2,400 euros.',
        assistant:
          "A Leica M6 for Lena's 40th birthday on 14 June is a lovely idea. Before you buy, check that the " +
          'shutter fires at every speed, that the light meter reacts, and ask whether it had a recent service ' +
          '(a clean, lube and adjust). A 50 mm lens and two rolls of Portra 400 would make it ready to use.',
      },
      {
        user: 'Also, I am allergic to hazelnuts, so keep that in mind whenever you suggest recipes.',
        assistant:
          'Noted: no hazelnuts, and I will also warn you about praline, gianduja and nougat, which usually ' +
          'contain them, and about products that may contain traces of nuts.',
      },
    ],
  },
  {
    sessionId: 'lisbon-trip',
    startedAt: Date.UTC(2026, 1, 20, 7, 15),
    topic: 'a weekend in Lisbon',
    turns: [
      {
        user: 'I am going to Lisbon for a long weekend in March. Which neighbourhood should I stay in?',
        assistant:
          'For a first visit, stay in Baixa or Chiado: flat, central and close to the river and the trams. ' +
          'Alfama is more atmospheric but hilly, with steep stairs. Príncipe Real is quieter, with good cafés ' +
          'and gardens, and is a short walk from Bairro Alto if you want to go out at night.',
      },
      {
        user: 'How do I get from the airport to Chiado, and is it worth buying a transport card?',
        assistant:
          'Take the red metro line from the airport and change to the blue line at São Sebastião, or the green ' +
          'line at Alameda, for Baixa-Chiado: about 35 minutes. Buy a reusable Navegante card at the airport ' +
          'station and load it with zapping credit; it works on the metro, the trams, the buses and the ' +
          'funiculars. A taxi or a ride share takes 20 to 30 minutes outside rush hours.',
      },
      {
        user: 'Give me a plan for Saturday with one museum and a good place for dinner.',
        assistant:
          'Saturday: morning at the Gulbenkian Museum (open from 10:00, closed on Tuesdays), lunch in its ' +
          'garden café, then the tram 28 from Martim Moniz up to Graça for the view from the Senhora do Monte ' +
          'viewpoint. Walk down through Alfama in the late afternoon. For dinner book a table in Cais do Sodré; ' +
          'grilled fish and a glass of vinho verde are the classic choice.',
      },
    ],
  },
  {
    sessionId: 'board-presentation',
    startedAt: Date.UTC(2026, 2, 16, 9, 50),
    topic: 'a presentation at work',
    turns: [
      {
        user: 'I have to present our quarterly numbers to the board in two weeks. How should I structure the slides?',
        assistant:
          'Lead with the answer: one slide with the three numbers the board cares about (revenue against plan, ' +
          'cash, and the one risk), then one slide per number with what changed and why, then what you ask ' +
          'of them. Keep the detail in an appendix. Ten slides for twenty minutes leaves time for questions.',
      },
      {
        user: 'I get nervous presenting. Any tips for the first minutes?',
        assistant:
          'Learn your first three sentences by heart and say them slowly; the nerves fade once you are ' +
          'talking. Rehearse twice out loud with a timer, once in front of a colleague. Arrive early, check ' +
          'the projector, and have a glass of water within reach. Pausing after each number looks confident.',
      },
    ],
  },
  {
    sessionId: 'balcony-garden',
    startedAt: Date.UTC(2026, 2, 29, 11, 0),
    topic: 'herbs on the balcony',
    turns: [
      {
        user: 'My balcony faces west and gets sun from about two in the afternoon. What herbs can I grow there?',
        assistant:
          'Afternoon sun suits most Mediterranean herbs: rosemary, thyme, oregano and sage like it warm and ' +
          'dry, so plant them in terracotta with gritty soil and water only when the top is dry. Basil and ' +
          'parsley want more water; chives and mint cope with less sun and spread, so give mint its own pot.',
      },
      {
        user: 'When can I put the basil outside?',
        assistant:
          'Basil hates the cold: wait until nights stay above 10 °C, usually mid-May, and bring it in if a ' +
          'cold night is forecast. Until then keep it on a sunny windowsill, pinch out the tips so it grows ' +
          'bushy, and water it in the morning rather than the evening.',
      },
    ],
  },
  {
    sessionId: 'farewell-cake',
    startedAt: Date.UTC(2026, 3, 8, 16, 5),
    topic: 'a cake for a farewell',
    needsEarlier: 'allergic to hazelnuts',
    turns: [
      {
        user: 'A colleague is leaving on Friday and I said I would bake a cake. Any recipes that travel well?',
        assistant:
          'A lemon drizzle loaf travels best: bake it in a loaf tin, let it cool in the tin and carry it ' +
          'wrapped. You need 225 g butter, 225 g sugar, 4 eggs, 225 g self-raising flour and two lemons; ' +
          'bake 45 to 50 minutes at 180 °C and pour the lemon syrup over it while it is still warm.',
      },
      {
        user: 'Could I make it chocolate instead? Some people at work do not like lemon.',
        assistant:
          'Yes: replace 30 g of the flour with cocoa, add 100 g of chopped dark chocolate, and swap the ' +
          "lemon syrup for a simple glaze of melted chocolate and a little cream. Check the chocolate's " +
          'label for nuts and traces of nuts before you buy it.',
      },
    ],
  },
  {
    sessionId: 'half-marathon',
    startedAt: Date.UTC(2026, 4, 3, 6, 30),
    topic: 'training for a half marathon',
    turns: [
      {
        user: 'I signed up for a half marathon in September. I run about 15 km a week now. Where do I start?',
        assistant:
          'Build up over 16 weeks: three runs a week, one of them long. Add no more than 10% to your weekly ' +
          'distance, and every fourth week run less to recover. Start with two easy 5 km runs and a 7 km long ' +
          'run, and grow the long run to 18 km by week 13.',
      },
      {
        user: 'What should I eat before a long run on a Sunday morning?',
        assistant:
          'Two hours before: something with carbohydrates and a little protein, such as oats with a banana ' +
          'and honey, or toast with jam. Drink half a litre of water, and on runs over 90 minutes take a gel ' +
          'or a few dates every 40 minutes.',
      },
      {
        user: 'And in the last two weeks before the race?',
        assistant:
          'Taper: cut your weekly distance by about a third two weeks before, and by half in the last week, ' +
          'keeping a few short faster stretches so your legs stay sharp. Sleep well, eat as usual, and try ' +
          'nothing new on race day: no new shoes, gels or breakfast.',
      },
    ],
  },
];

/** The question asked months later, in a new conversation, and what its answer needs. */
export const FINAL_QUESTION = {
  sessionId: 'birthday-reminder',
  askedAt: Date.UTC(2026, 4, 31, 20, 10),
  text: "My sister's birthday is in two weeks. What was the present I had in mind for her?",
  /** Said only in the first conversation, in January. */
  earlyFact: 'Leica M6',
} as const;
