import type { ChatMessage } from '@ctxkit/core';

/** Helpers for this plugin's tests (left out of the published package). */

/** A turn of an airline conversation: the user's request, a lookup with its result, and an answer. */
export function reservationTurn(n: number): ChatMessage[] {
  return [
    { role: 'user', content: `Turn ${n}: please look up reservation RES${1000 + n} for user user_${n}.` },
    {
      role: 'assistant',
      content: null,
      tool_calls: [
        {
          id: `call_${n}`,
          type: 'function',
          function: { name: 'get_reservation_details', arguments: `{"reservation_id":"RES${1000 + n}"}` },
        },
      ],
    },
    {
      role: 'tool',
      tool_call_id: `call_${n}`,
      content: JSON.stringify({
        reservation_id: `RES${1000 + n}`,
        flight: `HAT${100 + n}`,
        note: 'Lorem ipsum dolor sit amet '.repeat(8),
      }),
    },
    { role: 'assistant', content: `Reservation RES${1000 + n} is on flight HAT${100 + n}. Anything else?` },
  ];
}
