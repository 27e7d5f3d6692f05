/**
 * A personal assistant on the recall strategy: one user talks to it in separate conversations over
 * months, and a question in a new conversation brings back what was said in the first one. The agent's
 * plugin.json declares `std-recall-strategy` with `recall: { scope: 'resource' }`, so every
 * conversation opened for the same user (`forSession(id, { resourceId })`) recalls from all of that
 * user's conversations, and never from another user's.
 *
 * It replays six recorded conversations (January to May) with the runtime's clock set to when each
 * turn was sent, on a file store in a temporary directory; then it starts a new runtime on the same
 * directory, as after a restart, and asks in a new conversation about the January one. It prints the
 * recall block the payload carries and what `stats.extra.recall` says, and exits with 1 when the fact
 * from January is not in the payload. Runs offline; with a model configured in the environment
 * (OPENAI_BASE_URL / OPENAI_API_KEY / ANTHROPIC_API_KEY) the last payload is also sent to it.
 *
 *   npx tsc -b && node examples/personal-assistant/dist/main.js
 */
import 'reflect-metadata';

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

import {
  type AgentHandle,
  type ChatMessage,
  createContextRuntime,
  FileContextStore,
  type ILLMClient,
  type LLMPayload,
} from '@ctxkit/core';
import type { RecallStats } from '@ctxkit/core/strategy-kit';
import { createLLMClientFromEnv } from '@ctxkit/kernel';

import { FINAL_QUESTION, RECORDED_SESSIONS, type RecordedSession } from './recorded-sessions';

/** The user every conversation belongs to: the resource whose conversations share one recall index. */
export const RESOURCE_ID = 'user-42';

const MANIFEST = path.join(__dirname, '..', 'plugin.json');
/** Time between two turns of a conversation, and between a question and its answer. */
const TURN_MS = 4 * 60_000;
const ANSWER_MS = 60_000;

/** One replayed conversation. */
export interface SessionReport {
  sessionId: string;
  startedAt: number;
  turns: number;
  /** Per earlier conversation, the history positions its payloads recalled from it. */
  recalledFromEarlier: Record<string, number[]>;
  /** Whether a payload carried what the conversation needed from an earlier one (when it needed something). */
  carriedEarlier?: boolean;
}

/** What {@link runPersonalAssistant} found. */
export interface PersonalAssistantResult {
  sessions: SessionReport[];
  /** The recall block of the last payload (the user message framed in `<recalled-turns>`), if any. */
  recallBlock: string | undefined;
  /** The roles of the last payload's messages, in order. */
  roles: string[];
  recall: RecallStats;
  /** Whether the last payload holds the fact only the first conversation gave. */
  earlyFactRecalled: boolean;
  payloadTokens: number;
  availableTokens: number;
  /** The configured model's answer to the last question (none offline). */
  answer?: string;
}

/** Options of {@link runPersonalAssistant}. */
export interface PersonalAssistantOptions {
  /**
   * The model that answers the last question; `null` asks none.
   * @default the one the environment configures, else none
   */
  llm?: ILLMClient | null;
  /** @default console.log */
  log?: (line: string) => void;
}

/** A clock the runtime reads: recall dates each entry by it. */
interface Clock {
  now: number;
}

/** Replays the user's conversations, restarts, and asks about the first one in a new conversation. */
export async function runPersonalAssistant(options: PersonalAssistantOptions = {}): Promise<PersonalAssistantResult> {
  const log = options.log ?? ((line: string) => console.log(line));
  const llm = options.llm === null ? undefined : (options.llm ?? createLLMClientFromEnv());
  const clock: Clock = { now: RECORDED_SESSIONS[0]!.startedAt };
  const rootDir = await mkdtemp(path.join(tmpdir(), 'ctxkit-personal-assistant-'));
  // Each runtime gets its own store object on the same directory: nothing is shared but the files.
  const open = () => createContextRuntime({ store: new FileContextStore({ rootDir }), now: () => clock.now });
  try {
    const first = await open();
    let sessions: SessionReport[];
    try {
      const agent = await first.loadAgent(MANIFEST);
      const config = agent.config as { maxContextTokens: number; recall: { scope: string } };
      log(
        `personal-assistant: strategy ${agent.strategyId}, ${config.maxContextTokens} tokens, ` +
          `recall scope ${config.recall.scope}, file store in ${rootDir}`,
      );
      sessions = await replaySessions(agent, clock, log);
    } finally {
      await first.dispose();
    }

    log('restart: a new runtime on the same store directory');
    const second = await open();
    try {
      return { sessions, ...(await askAboutJanuary(await second.loadAgent(MANIFEST), clock, llm, log)) };
    } finally {
      await second.dispose();
    }
  } finally {
    await rm(rootDir, { recursive: true, force: true });
  }
}

/** Replays every recorded conversation as a host would: compose, answer, report the finished turn. */
async function replaySessions(agent: AgentHandle, clock: Clock, log: (line: string) => void): Promise<SessionReport[]> {
  const systemPrompt = agent.manifest.systemPrompt ?? '';
  const reports: SessionReport[] = [];
  for (const recorded of RECORDED_SESSIONS) {
    const session = agent.forSession(recorded.sessionId, { resourceId: RESOURCE_ID });
    const report: SessionReport = {
      sessionId: recorded.sessionId,
      startedAt: recorded.startedAt,
      turns: 0,
      recalledFromEarlier: {},
      ...(recorded.needsEarlier !== undefined ? { carriedEarlier: false } : {}),
    };
    const history: ChatMessage[] = [];
    for (const [position, turn] of recorded.turns.entries()) {
      clock.now = recorded.startedAt + position * TURN_MS;
      history.push({ role: 'user', content: turn.user });
      const payload = await session.composePayload(systemPrompt, history, []);
      for (const hit of recallOf(payload).hits) {
        if (hit.sessionId === recorded.sessionId) continue;
        const positions = (report.recalledFromEarlier[hit.sessionId] ??= []);
        if (!positions.includes(hit.from)) positions.push(hit.from);
      }
      if (recorded.needsEarlier !== undefined && payloadText(payload).includes(recorded.needsEarlier)) {
        report.carriedEarlier = true;
      }
      // The recorded answer stands in for the model's; the finished turn is indexed once, in the store.
      clock.now += ANSWER_MS;
      history.push({ role: 'assistant', content: turn.assistant });
      await session.onTurnComplete(history);
      report.turns++;
    }
    reports.push(report);
    log(sessionLine(recorded, report));
  }
  return reports;
}

/**
 * The question about the first conversation, in a new one, on an agent of a fresh runtime: what it
 * recalls comes from the store alone (the index is rebuilt from the records the first runtime appended).
 */
async function askAboutJanuary(
  agent: AgentHandle,
  clock: Clock,
  llm: ILLMClient | undefined,
  log: (line: string) => void,
): Promise<Omit<PersonalAssistantResult, 'sessions'>> {
  clock.now = FINAL_QUESTION.askedAt;
  const session = agent.forSession(FINAL_QUESTION.sessionId, { resourceId: RESOURCE_ID });
  const question: ChatMessage[] = [{ role: 'user', content: FINAL_QUESTION.text }];
  const payload = await session.composePayload(agent.manifest.systemPrompt ?? '', question, []);
  const recall = recallOf(payload);
  const recallBlock = payload.messages.map(textOf).find((text) => text.includes('<recalled-turns>'));
  const earlyFactRecalled = payloadText(payload).includes(FINAL_QUESTION.earlyFact);
  const roles = payload.messages.map((message) => message.role);
  const { output_tokens: payloadTokens, budget } = payload.stats;

  log(`${day(FINAL_QUESTION.askedAt)} new conversation "${FINAL_QUESTION.sessionId}": ${FINAL_QUESTION.text}`);
  log(`payload: ${roles.join(' + ')}, ${payloadTokens} of ${budget.available} tokens`);
  log(recallBlock ?? '(no recall block)');
  log(
    `stats.extra.recall: scope ${recall.scope}, ${recall.candidates} candidates, ` +
      `${recall.tokens} of ${recall.allowanceTokens} tokens, embedding ${recall.embedding}; hits:`,
  );
  for (const hit of recall.hits) log(`  ${JSON.stringify({ ...hit, at: new Date(hit.at).toISOString() })}`);
  const when = day(RECORDED_SESSIONS[0]!.startedAt);
  log(`"${FINAL_QUESTION.earlyFact}" (said on ${when}) is ${earlyFactRecalled ? '' : 'NOT '}in the payload`);

  const result: Omit<PersonalAssistantResult, 'sessions'> = {
    recallBlock,
    roles,
    recall,
    earlyFactRecalled,
    payloadTokens,
    availableTokens: budget.available,
  };
  if (llm !== undefined) {
    const completion = await llm.complete({ model: agent.manifest.model, messages: payload.messages });
    result.answer = completion.text;
    log(`${llm.name} answers: ${completion.text}`);
  }
  return result;
}

function recallOf(payload: LLMPayload): RecallStats {
  return payload.stats.extra!.recall as RecallStats;
}

function textOf(message: ChatMessage): string {
  return typeof message.content === 'string' ? message.content : '';
}

function payloadText(payload: LLMPayload): string {
  return payload.messages.map(textOf).join('\n');
}

/** `2026-04-08 "farewell-cake" (…): 2 turns; turns recalled from earlier conversations: …; "…" carried`. */
function sessionLine(recorded: RecordedSession, report: SessionReport): string {
  const recalled = Object.entries(report.recalledFromEarlier).map(([id, positions]) => `${id} ×${positions.length}`);
  const needed = recorded.needsEarlier;
  const carried = needed === undefined ? '' : `; "${needed}" ${report.carriedEarlier ? '' : 'NOT '}carried`;
  return (
    `${day(recorded.startedAt)} "${recorded.sessionId}" (${recorded.topic}): ${report.turns} turns; ` +
    `turns recalled from earlier conversations: ${recalled.length > 0 ? recalled.join(', ') : 'none'}${carried}`
  );
}

/** `2026-01-11`: the day, as the log lines show it. */
function day(at: number): string {
  return new Date(at).toISOString().slice(0, 10);
}

if (require.main === module) {
  runPersonalAssistant()
    .then((result) => {
      // The point of the example: a missing early fact is a failure, not a line in the output.
      if (!result.earlyFactRecalled) process.exitCode = 1;
    })
    .catch((error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    });
}
