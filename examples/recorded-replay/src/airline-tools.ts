import type { ToolDefinition } from '@ctxkit/core';

const string = (description: string) => ({ type: 'string', description });
const integer = (description: string) => ({ type: 'integer', description });
const flights = {
  type: 'array',
  description: 'Flight segments, each { flight_number, date (YYYY-MM-DD) }.',
  items: {
    type: 'object',
    properties: { flight_number: { type: 'string' }, date: { type: 'string' } },
    required: ['flight_number', 'date'],
  },
};
const passengers = {
  type: 'array',
  description: 'Passengers, each { first_name, last_name, dob (YYYY-MM-DD) }.',
  items: {
    type: 'object',
    properties: { first_name: { type: 'string' }, last_name: { type: 'string' }, dob: { type: 'string' } },
    required: ['first_name', 'last_name', 'dob'],
  },
};

function tool(
  name: string,
  description: string,
  properties: Record<string, unknown> = {},
  required: string[] = Object.keys(properties),
): ToolDefinition {
  return { type: 'function', function: { name, description, parameters: { type: 'object', properties, required } } };
}

/**
 * The tools of the tau-bench airline domain, with the argument names the recorded conversations
 * use (the entity extraction schema `airline-booking.schema.json` follows the same names). Their
 * executors are built by {@link createRecordedTools} from a recorded conversation.
 */
export const AIRLINE_TOOL_DEFINITIONS: readonly ToolDefinition[] = [
  tool('get_user_details', 'Get the details of a user, including their reservations and payment methods.', {
    user_id: string('The user id, such as sara_doe_496.'),
  }),
  tool('get_reservation_details', 'Get the details of a reservation.', {
    reservation_id: string('The reservation id, such as 8JX2WO.'),
  }),
  tool('list_all_airports', 'List every airport and its city.'),
  tool('search_direct_flight', 'Search direct flights between two cities on a date.', {
    origin: string('IATA code of the origin airport, such as JFK.'),
    destination: string('IATA code of the destination airport, such as LAX.'),
    date: string('Date of the flight, YYYY-MM-DD.'),
  }),
  tool('search_onestop_flight', 'Search one-stop flights between two cities on a date.', {
    origin: string('IATA code of the origin airport.'),
    destination: string('IATA code of the destination airport.'),
    date: string('Date of the first flight, YYYY-MM-DD.'),
  }),
  tool('book_reservation', 'Book a reservation.', {
    user_id: string('The user id.'),
    origin: string('IATA code of the origin airport.'),
    destination: string('IATA code of the destination airport.'),
    flight_type: { type: 'string', enum: ['one_way', 'round_trip'] },
    cabin: { type: 'string', enum: ['basic_economy', 'economy', 'business'] },
    flights,
    passengers,
    payment_methods: {
      type: 'array',
      description: 'Payment methods, each { payment_id, amount }.',
      items: { type: 'object' },
    },
    total_baggages: integer('Total number of checked bags.'),
    nonfree_baggages: integer('Number of bags to pay for.'),
    insurance: { type: 'string', enum: ['yes', 'no'] },
  }),
  tool('update_reservation_flights', 'Change the flights (or cabin) of a reservation.', {
    reservation_id: string('The reservation id.'),
    cabin: { type: 'string', enum: ['basic_economy', 'economy', 'business'] },
    flights,
    payment_id: string('Payment method id for the price difference.'),
  }),
  tool('update_reservation_passengers', 'Change the passengers of a reservation.', {
    reservation_id: string('The reservation id.'),
    passengers,
  }),
  tool('update_reservation_baggages', 'Change the baggage of a reservation.', {
    reservation_id: string('The reservation id.'),
    total_baggages: integer('Total number of checked bags.'),
    nonfree_baggages: integer('Number of bags to pay for.'),
    payment_id: string('Payment method id for the bags.'),
  }),
  tool('cancel_reservation', 'Cancel a whole reservation.', { reservation_id: string('The reservation id.') }),
  tool('send_certificate', 'Send a certificate to a user as compensation.', {
    user_id: string('The user id.'),
    amount: { type: 'number', description: 'Amount in dollars.' },
  }),
  tool('calculate', 'Evaluate an arithmetic expression.', { expression: string('The expression, such as 2 + 2.') }),
  tool('think', 'Think something through; the thought is not shown to the user.', { thought: string('The thought.') }),
  tool('transfer_to_human_agents', 'Transfer the user to a human agent.', {
    summary: string('A summary of the issue.'),
  }),
];
