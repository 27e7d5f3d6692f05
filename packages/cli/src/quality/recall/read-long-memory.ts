import * as fs from 'node:fs';
import * as readline from 'node:readline';

import type { ChatMessage } from '@ctxkit/core';

import type { LongMemoryConversation, LongMemoryQuestion } from './long-memory-conversation';
import { messageDates, questionDate } from './session-dates';

/** Answers longer than this are free text (a preference, a computation): not looked for verbatim. */
const MAX_ANSWER_WORDS = 8;

interface LongMemEvalRecord {
  id: string;
  question: string;
  answer: unknown;
  type?: string;
  question_date: string;
  messages: ChatMessage[];
  evidence: number[];
}

interface LocomoRecord {
  id: string;
  messages: ChatMessage[];
  facts?: Array<{ question: string; answer: unknown; category?: number; evidence_message_indexes?: number[] }>;
}

async function* jsonLines(file: string, limit?: number): AsyncGenerator<unknown> {
  const lines = readline.createInterface({ input: fs.createReadStream(file, 'utf8'), crlfDelay: Infinity });
  let count = 0;
  for await (const line of lines) {
    if (line.trim().length === 0) continue;
    if (limit !== undefined && count >= limit) break;
    count++;
    yield JSON.parse(line);
  }
  lines.close();
}

function textOf(message: ChatMessage): string {
  return typeof message.content === 'string' ? message.content : '';
}

function shortAnswer(answer: unknown): string | undefined {
  if (answer === null || answer === undefined) return undefined;
  const text = String(answer).trim();
  return text.length > 0 && text.split(/\s+/).length <= MAX_ANSWER_WORDS ? text : undefined;
}

/**
 * The LongMemEval_S records (one question each, asked after 38–58 dated sessions): the question as a
 * newest user message holding its date, its evidence turns, its answer when short.
 */
export async function readLongMemEval(file: string, limit?: number): Promise<LongMemoryConversation[]> {
  const out: LongMemoryConversation[] = [];
  for await (const value of jsonLines(file, limit)) {
    const record = value as LongMemEvalRecord;
    const history = record.messages.slice(1);
    const dates = messageDates(history.map(textOf));
    const answer = shortAnswer(record.answer);
    const question: LongMemoryQuestion = {
      text: `[${record.question_date}] ${record.question}`,
      askedAt: questionDate(record.question_date) ?? dates[dates.length - 1] ?? 0,
      evidence: record.evidence.map((index) => index - 1),
      ...(answer !== undefined ? { answer } : {}),
      ...(record.type ? { category: record.type } : {}),
    };
    out.push({ id: record.id, systemPrompt: textOf(record.messages[0]!), history, dates, questions: [question] });
  }
  return out;
}

/**
 * The LoCoMo conversations, each with every annotated question that has evidence turns and an answer
 * (the adversarial ones have none), asked after the whole conversation, a day after its last session.
 */
export async function readLocomo(file: string, limit?: number): Promise<LongMemoryConversation[]> {
  const out: LongMemoryConversation[] = [];
  for await (const value of jsonLines(file, limit)) {
    const record = value as LocomoRecord;
    const history = record.messages.slice(1);
    const dates = messageDates(history.map(textOf));
    const askedAt = (dates[dates.length - 1] ?? 0) + 24 * 3600 * 1000;
    const questions: LongMemoryQuestion[] = [];
    for (const fact of record.facts ?? []) {
      const evidence = (fact.evidence_message_indexes ?? [])
        .map((index) => index - 1)
        .filter((index) => index >= 0 && index < history.length);
      if (evidence.length === 0 || fact.answer === null || fact.answer === undefined) continue;
      const answer = shortAnswer(fact.answer);
      questions.push({
        text: fact.question,
        askedAt,
        evidence,
        ...(answer !== undefined ? { answer } : {}),
        ...(fact.category !== undefined ? { category: String(fact.category) } : {}),
      });
    }
    out.push({ id: record.id, systemPrompt: textOf(record.messages[0]!), history, dates, questions });
  }
  return out;
}
