/**
 * Four agents in one process, each declared by its own `plugin.json` (`agents/<role>/plugin.json`)
 * and loaded through one `createContextRuntime`: a customer-support agent (sliding window), a
 * novelist (dynamic summarization), a booking agent (entity extraction, two customers in two
 * sessions) and a coding agent (tool output cache). Each gets its own strategy instance per
 * session, its own event bus and its own keys in the shared store. The program runs a few turns in
 * each, checks that no summary, state or cached output crosses from one role or session to
 * another, then swaps the support agent to the summarization strategy by changing its manifest and
 * reloading it, and shows the new behaviour on the same questions.
 *
 * Offline every role talks to a scripted model; with an LLM configured in the environment
 * (OPENAI_BASE_URL / OPENAI_API_KEY / ANTHROPIC_API_KEY) every role talks to that model.
 *
 *   npm run build && node examples/multi-role-process/dist/main.js
 */
import 'reflect-metadata';

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import {
  type AgentHandle,
  type ContextRuntime,
  createContextRuntime,
  type ILLMClient,
  type PayloadStats,
} from '@ctxkit/core';
import { contentText } from '@ctxkit/core/strategy-kit';
import type { ScriptedLLMClient } from '@ctxkit/core/testing';
import { type AgentTool, createAgent, createLLMClientFromEnv } from '@ctxkit/kernel';

import { bookingModel, codingModel, novelistModel, shellTool, supportModel } from './scripted-roles';

/** Where the four agent manifests live. */
export const AGENTS_DIR = path.join(__dirname, '..', 'agents');

/** The support questions, asked before and after the swap. */
export const SUPPORT_QUESTIONS = [
  'Can I change the date of my flight to Denver?',
  'Is there a fee for a second checked bag?',
  'Can I pick a window seat on that flight?',
  'Do you serve vegetarian meals?',
  'Can I add travel insurance now?',
  'What happens if my flight is cancelled?',
];

/** The two booking customers, each in its own session. */
export const BOOKING_SESSIONS: Record<string, string[]> = {
  'customer-a': ["Hi, I'm mia_li_3668. I want to fly from JFK to SEA on 2024-05-20.", 'Economy, one way please.'],
  'customer-b': ['This is ivan_muller_7015; my reservation G72NSF needs a change.', 'Please move it to business.'],
};

/** What the model of one role (or session) received, in short. */
export interface RoleReport {
  agentId: string;
  strategyId: string;
  sessionId: string;
  modelCalls: number;
  /** The last payload: messages, tokens, and what the strategy did. */
  messagesSent: number;
  tokensSent: number;
  dropped: number;
  summarized: number;
  memoryTokens: number;
  trimmed: number;
  /** Strategy-specific facts of the last payload (summary, entity state, cache). */
  extra: Record<string, unknown>;
}

/** One isolation check and its outcome. */
export interface IsolationCheck {
  name: string;
  ok: boolean;
  detail: string;
}

/** What {@link runMultiRoleProcess} returns. */
export interface MultiRoleResult {
  offline: boolean;
  plugins: string[];
  roles: RoleReport[];
  isolation: IsolationCheck[];
  /** Store keys per agent id, as `session/kind/name`. */
  storeKeys: Record<string, string[]>;
  /** The support agent before and after its manifest swapped the strategy. */
  swap: { before: RoleReport; after: RoleReport; manifest: string };
}

/** Options of {@link runMultiRoleProcess}. */
export interface MultiRoleOptions {
  /** One model for every role; @default the one the environment configures, else a scripted model per role */
  llm?: ILLMClient;
  /** @default console.log */
  log?: (line: string) => void;
}

interface Role {
  handle: AgentHandle;
  llm: ILLMClient;
  /** Request texts per session, when the model is scripted. */
  sent: Map<string, string[]>;
}

function report(handle: AgentHandle, sessionId: string, modelCalls: number, stats: PayloadStats): RoleReport {
  return {
    agentId: handle.id,
    strategyId: handle.strategyId,
    sessionId,
    modelCalls,
    messagesSent: stats.messages.output,
    tokensSent: stats.output_tokens,
    dropped: stats.dropped,
    summarized: stats.summarized,
    memoryTokens: stats.sections.memory,
    trimmed: stats.trimmed,
    extra: structuredClone(stats.extra ?? {}),
  };
}

async function runTurns(
  role: Role,
  sessionId: string,
  inputs: string[],
  tools: AgentTool[],
  log: (line: string) => void,
): Promise<RoleReport> {
  const agent = createAgent(role.handle, {
    llm: role.llm,
    systemPrompt: role.handle.manifest.systemPrompt ?? '',
    tools,
  });
  let calls = 0;
  let last: PayloadStats | undefined;
  const scripted = role.llm.offline ? (role.llm as ScriptedLLMClient) : undefined;
  for (const input of inputs) {
    const from = scripted?.requests.length ?? 0;
    const result = await agent.run(input, { sessionId, waitForIdle: true });
    calls += result.steps;
    last = result.payloads[result.payloads.length - 1]!;
    const texts = role.sent.get(sessionId) ?? [];
    // The strategy's extraction calls are left out: they carry the state schema, whose examples name customers.
    for (const request of scripted?.requests.slice(from) ?? [])
      if (request.responseFormat !== 'json')
        texts.push(request.messages.map((message) => contentText(message.content ?? null)).join('\n'));
    role.sent.set(sessionId, texts);
  }
  const result = report(role.handle, sessionId, calls, last!);
  log(
    `${result.agentId.padEnd(14)} ${result.strategyId.padEnd(31)} session ${sessionId.padEnd(10)} ${inputs.length} ` +
      `turns: ` +
      `sent ${result.messagesSent} messages / ${result.tokensSent} tokens (dropped ${result.dropped}, ` +
      `summarized ${result.summarized}, trimmed ${result.trimmed}, summary ${result.memoryTokens} tokens)`,
  );
  return result;
}

function check(name: string, ok: boolean, detail: string, log: (line: string) => void): IsolationCheck {
  log(`  ${ok ? 'ok  ' : 'FAIL'} ${name}: ${detail}`);
  return { name, ok, detail };
}

async function storeKeys(runtime: ContextRuntime, agentIds: string[]): Promise<Record<string, string[]>> {
  const keys: Record<string, string[]> = {};
  for (const agentId of agentIds) {
    const listed = [...(await runtime.store.list({ agentId })), ...(await runtime.store.listBlobs({ agentId }))];
    keys[agentId] = [...new Set(listed.map((key) => `${key.sessionId}/${key.kind}/${key.name}`))].sort();
  }
  return keys;
}

/** Runs the four roles in one process, checks their isolation, and swaps the support agent's strategy. */
export async function runMultiRoleProcess(options: MultiRoleOptions = {}): Promise<MultiRoleResult> {
  const log = options.log ?? ((line: string) => console.log(line));
  const configured = options.llm ?? createLLMClientFromEnv();
  const runtime = await createContextRuntime();
  const swapDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ctxkit-multi-role-'));
  try {
    const load = async (role: string, scripted: () => ScriptedLLMClient, shareWithStrategy: boolean): Promise<Role> => {
      const llm = configured ?? scripted();
      // Each role has one model client, given to createAgent: its strategy's summaries, extraction and compaction go
      // through it too.
      const handle = await runtime.loadAgent(
        path.join(AGENTS_DIR, role, 'plugin.json'),
        configured || shareWithStrategy ? { llm } : {},
      );
      return { handle, llm, sent: new Map() };
    };
    const support = await load('support', supportModel, false);
    const novelist = await load('novelist', novelistModel, false);
    const booking = await load('booking', bookingModel, false);
    const coding = await load('coding', codingModel, true);
    const plugins = runtime.listPlugins().map((plugin) => plugin.id);
    log(
      `one runtime, plugins: ${plugins.join(', ')}; ` +
        `model: ${configured ? configured.name : 'a scripted model per role (offline)'}`,
    );

    const roles: RoleReport[] = [];
    roles.push(await runTurns(support, 'default', SUPPORT_QUESTIONS, [], log));
    roles.push(
      await runTurns(
        novelist,
        'default',
        ['Write chapter 1.', 'Write chapter 2.', 'Write chapter 3.', 'Write chapter 4.', 'Write chapter 5.'],
        [],
        log,
      ),
    );
    for (const [sessionId, inputs] of Object.entries(BOOKING_SESSIONS))
      roles.push(await runTurns(booking, sessionId, inputs, [], log));
    roles.push(
      await runTurns(
        coding,
        'default',
        ['Find the TODOs in the parser.', 'Now the ones in the lexer.', 'And in the code generator.'],
        [shellTool()],
        log,
      ),
    );

    log('isolation:');
    const isolation: IsolationCheck[] = [];
    const textsOf = (role: Role, sessionId?: string) =>
      [...role.sent.entries()]
        .filter(([session]) => sessionId === undefined || session === sessionId)
        .flatMap(([, texts]) => texts)
        .join('\n');
    const stateOf = (sessionId: string) =>
      (
        (roles.find((r) => r.agentId === booking.handle.id && r.sessionId === sessionId)!.extra.entities ?? {}) as {
          state?: Record<string, unknown>;
        }
      ).state ?? {};
    const stateA = stateOf('customer-a');
    const stateB = stateOf('customer-b');
    isolation.push(
      check(
        'booking sessions keep their own state',
        stateA.user_id === 'mia_li_3668' && stateB.user_id === 'ivan_muller_7015',
        `customer-a ${JSON.stringify(stateA.user_id)}, customer-b ${JSON.stringify(stateB.user_id)}`,
        log,
      ),
    );
    if (!configured) {
      const a = textsOf(booking, 'customer-a');
      const b = textsOf(booking, 'customer-b');
      isolation.push(
        check(
          'no booking session sees the other customer',
          !a.includes('ivan_muller_7015') && !a.includes('G72NSF') && !b.includes('mia_li_3668'),
          'customer-a never received ivan_muller_7015 or G72NSF; customer-b never received mia_li_3668',
          log,
        ),
      );
      const others = (except: Role) =>
        [support, novelist, booking, coding]
          .filter((role) => role !== except)
          .map((role) => textsOf(role))
          .join('\n');
      isolation.push(
        check(
          "the novelist's story and summary stay with the novelist",
          textsOf(novelist).includes('lighthouse') && !others(novelist).includes('lighthouse'),
          'no other role received a word of the story',
          log,
        ),
      );
      isolation.push(
        check(
          'the booking state block stays with the booking agent',
          textsOf(booking).includes('<conversation_state') && !others(booking).includes('<conversation_state'),
          'only the booking agent received <conversation_state>',
          log,
        ),
      );
      isolation.push(
        check(
          "the coding agent's cached outputs stay with it",
          /ref=to_[0-9a-f]{32}/.test(textsOf(coding)) && !/to_[0-9a-f]{32}/.test(others(coding)),
          'only the coding agent received tool output refs',
          log,
        ),
      );
    }
    const keys = await storeKeys(runtime, [support.handle.id, novelist.handle.id, booking.handle.id, coding.handle.id]);
    for (const [agentId, list] of Object.entries(keys)) {
      const kinds = [...new Set(list.map((key) => key.split('/').slice(0, 2).join('/')))].join(', ');
      log(`  store ${agentId}: ${list.length === 0 ? '(nothing stored)' : kinds}`);
    }
    const kindsOf = (agentId: string) => new Set(keys[agentId]!.map((key) => key.split('/')[1]));
    isolation.push(
      check(
        'each agent keeps its own keys in the shared store',
        kindsOf(booking.handle.id).has('entities') &&
          !kindsOf(booking.handle.id).has('tool-output') &&
          kindsOf(coding.handle.id).has('tool-output') &&
          !kindsOf(coding.handle.id).has('entities'),
        'entity state only under booking-agent, cached tool outputs only under coding-agent',
        log,
      ),
    );

    // Swap: the support manifest now names the summarization strategy; reload it.
    const original = JSON.parse(fs.readFileSync(path.join(AGENTS_DIR, 'support', 'plugin.json'), 'utf8')) as {
      contextStrategy: { config: Record<string, unknown> };
    };
    // Same model and budget; the summarization strategy folds every turn past the second.
    const swapped = {
      ...original,
      contextStrategy: {
        type: 'plugin',
        pluginId: 'std-summarization-strategy',
        config: { ...original.contextStrategy.config, threshold: 2, batchTurns: 1, summarizer: 'offline' },
      },
    };
    const manifest = path.join(swapDir, 'support', 'plugin.json');
    fs.mkdirSync(path.dirname(manifest), { recursive: true });
    fs.writeFileSync(manifest, `${JSON.stringify(swapped, null, 2)}\n`);
    await support.handle.dispose();
    log(`swap: support-agent's plugin.json now names std-summarization-strategy; reloading`);
    const reloaded: Role = {
      handle: await runtime.loadAgent(manifest, configured ? { llm: configured } : {}),
      llm: configured ?? supportModel(),
      sent: new Map(),
    };
    const before = roles[0]!;
    const after = await runTurns(reloaded, 'default', SUPPORT_QUESTIONS, [], log);
    log(
      `  before: ${before.dropped} messages dropped, no summary; after: ${after.summarized} messages summarized ` +
        `into ${after.memoryTokens} summary tokens, ${after.dropped} dropped`,
    );
    return {
      offline: !configured,
      plugins,
      roles,
      isolation,
      storeKeys: keys,
      swap: { before, after, manifest: JSON.stringify(swapped.contextStrategy) },
    };
  } finally {
    await runtime.dispose();
    fs.rmSync(swapDir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  runMultiRoleProcess()
    .then((result) => {
      if (result.isolation.some((check) => !check.ok)) process.exitCode = 1;
    })
    .catch((error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    });
}
