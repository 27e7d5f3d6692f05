import * as fs from 'node:fs';
import * as path from 'node:path';

import { contentText } from '@ctxkit/core/strategy-kit';

import { type BookingAgentResult, runBookingAgent } from './main';

describe('booking-agent', () => {
  describe('#runBookingAgent', () => {
    let result: BookingAgentResult;
    const lines: string[] = [];

    beforeAll(async () => {
      result = await runBookingAgent({ log: (line) => lines.push(line) });
    });

    it("replays every customer turn of task-11 offline, the extraction going through the agent's one client", () => {
      expect(result.offline).toBe(true);
      expect(result.extractor).toBe('llm:scripted-tau-bench-agent/gpt-4o');
      expect(result.turns).toHaveLength(8);
      expect(lines[0]).toMatch(/std-entity-extraction-strategy.*offline/);
      expect(result.turns.flatMap((turn) => turn.toolCalls)).toEqual(
        expect.arrayContaining(['get_user_details', 'get_reservation_details', 'book_reservation']),
      );
    });

    it('extracts the booking state from the conversation, turn by turn', () => {
      const last = result.turns[result.turns.length - 1]!;
      expect(last.state).toMatchObject({
        user_id: 'ivan_muller_7015',
        destination: 'SEA',
        flight_type: 'one_way',
        cabin: 'economy',
      });
      expect(last.state.reservation_ids).toEqual(expect.arrayContaining(['G72NSF']));
      expect(last.state.flight_numbers).toEqual(expect.arrayContaining(['HAT097']));
      expect(last.stateVersion).toBeGreaterThan(result.turns[0]!.stateVersion);
      expect(lines.some((line) => line.includes('"user_id":"ivan_muller_7015"'))).toBe(true);
    });

    it('sends the model the state block and only the last turn verbatim, never the whole dialogue', () => {
      for (const request of result.requests) {
        // The state block (a user message, framed as a quoted record) and the customer's last message.
        const users = request.messages.filter((message) => message.role === 'user');
        expect(users).toHaveLength(2);
        expect(contentText(users[0]!.content)).toMatch(/\n<conversation_state version="\d+">/);
        expect(
          request.messages
            .filter((message) => message.role === 'system')
            .map((message) => contentText(message.content))
            .join('\n'),
        ).not.toContain('<conversation_state');
      }
      const lastRequest = result.requests[result.requests.length - 1]!;
      expect(lastRequest.messages.map((message) => contentText(message.content ?? null)).join('\n')).toContain(
        'ivan_muller_7015',
      );
      // The first customer message is gone from the payload but its facts stay in the state.
      expect(JSON.stringify(lastRequest.messages)).not.toContain('book the same flights as my current reservation');
      const last = result.turns[result.turns.length - 1]!;
      expect(last.historyLeftOut).toBeGreaterThan(20);
      expect(result.history.length).toBeGreaterThan(last.messagesSent + 20);
    });

    it("declares the fields of the entity extraction plugin's tau-bench airline schema in its plugin.json", () => {
      type Schema = {
        properties: Record<string, { type?: unknown; pattern?: unknown; enum?: unknown }>;
        required: string[];
      };
      const manifest = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'plugin.json'), 'utf8')) as {
        contextStrategy: { config: { stateSchema: Schema } };
      };
      const schema = JSON.parse(
        fs.readFileSync(
          path.join(
            __dirname,
            '..',
            '..',
            '..',
            'plugins',
            'entity-extraction',
            'schemas',
            'airline-booking.schema.json',
          ),
          'utf8',
        ),
      ) as Schema;
      const declared = manifest.contextStrategy.config.stateSchema;
      expect(Object.keys(declared.properties)).toEqual(Object.keys(schema.properties));
      expect(declared.required).toEqual(schema.required);
      for (const [name, field] of Object.entries(schema.properties)) {
        expect({
          name,
          type: declared.properties[name]!.type,
          pattern: declared.properties[name]!.pattern,
          enum: declared.properties[name]!.enum,
        }).toEqual({ name, type: field.type, pattern: field.pattern, enum: field.enum });
      }
    });
  });
});
