/**
 * A novelist agent on the dynamic summarization strategy: it writes a story chapter by chapter;
 * older chapters are folded into a running summary in the background, so what the model receives
 * stays small while the story grows. The agent has one model client, given to `createAgent`: it
 * writes the chapters and the summaries. Runs offline (a scripted client writing both) unless an LLM
 * is configured in the environment (OPENAI_BASE_URL / OPENAI_API_KEY / ANTHROPIC_API_KEY); requests
 * name the manifest's model (`gpt-4o`: change `model` in plugin.json to your endpoint's).
 *
 *   npm run build && node examples/novelist-agent/dist/main.js
 */
import 'reflect-metadata';

import * as path from 'node:path';

import { createContextRuntime, type ILLMClient, type LLMCompletionRequest } from '@ctxkit/core';
import { ScriptedLLMClient } from '@ctxkit/core/testing';
import { createAgent, createLLMClientFromEnv } from '@ctxkit/kernel';

/** One chapter as the model received it. */
export interface ChapterReport {
  chapter: number;
  /** Messages and tokens of the payload the model received for this chapter. */
  messagesSent: number;
  tokensSent: number;
  /** History messages the strategy replaced by its summary in that payload. */
  summarized: number;
  /** Tokens of the summary block in that payload. */
  memoryTokens: number;
}

/** Options of {@link runNovelist}. */
export interface NovelistOptions {
  /** @default 8 */
  chapters?: number;
  /** The model; @default the one the environment configures, else a scripted offline writer */
  llm?: ILLMClient;
  /** @default console.log */
  log?: (line: string) => void;
}

const HEROES = ['Aiko', 'the lighthouse keeper', 'a stray cat named Miso', 'the harbour master'];

/** The offline writer: a deterministic chapter that mentions what the request asked for. */
function writeChapter(request: LLMCompletionRequest): string {
  const last = request.messages[request.messages.length - 1];
  const ask = typeof last?.content === 'string' ? last.content : '';
  const chapter = Number(/chapter (\d+)/i.exec(ask)?.[1] ?? '0');
  const hero = HEROES[chapter % HEROES.length]!;
  return (
    `Chapter ${chapter}. ${hero} walked the harbour at dawn. ` +
    'The fog rolled in over the boats and the bells rang softly. '.repeat(12)
  );
}

/**
 * The offline summary: the chapters the summary request's transcript holds, each with its hero, in a
 * `<summary>` block (a request is a summary request when it carries the strategy's `<transcript>`).
 */
function summarizeChapters(request: LLMCompletionRequest): string {
  const text = request.messages
    .map((message) => (typeof message.content === 'string' ? message.content : ''))
    .join('\n');
  const previous = /<previous_summary>\s*([\s\S]*?)\s*<\/previous_summary>/.exec(text)?.[1]?.trim();
  const transcript = /<transcript[^>]*>([\s\S]*?)<\/transcript>/.exec(text)?.[1] ?? '';
  const chapters = [...transcript.matchAll(/Chapter (\d+)\. (.+?) walked the harbour at dawn\./g)].map(
    (match) => `chapter ${match[1]}: ${match[2]} walks the harbour at dawn`,
  );
  return (
    `<summary>` +
    `${[previous && previous !== '(none)' ? previous : '', chapters.length > 0 ? `${chapters.join('; ')}` + `.` : '']
      .filter(Boolean)
      .join(' ')}</summary>`
  );
}

/** The offline client: summaries for the strategy's summary requests, chapters for the rest. */
function writeOffline(request: LLMCompletionRequest): string {
  const isSummaryRequest = request.messages.some(
    (message) => typeof message.content === 'string' && message.content.includes('<transcript'),
  );
  return isSummaryRequest ? summarizeChapters(request) : writeChapter(request);
}

/** Writes the story and reports, per chapter, what the model received. */
export async function runNovelist(
  options: NovelistOptions = {},
): Promise<{ llm: string; offline: boolean; chapters: ChapterReport[] }> {
  const log = options.log ?? ((line: string) => console.log(line));
  const configured = options.llm ?? createLLMClientFromEnv();
  const runtime = await createContextRuntime();
  const handle = await runtime.loadAgent(path.join(__dirname, '..', 'plugin.json'));
  const llm = configured ?? new ScriptedLLMClient([writeOffline], { repeatLast: true, name: 'scripted-novelist' });
  log(
    `novelist-agent: strategy ${handle.strategyId}, model ` +
      `client ${llm.name}${llm.offline ? ' (offline, no language model)' : ''}, for the chapters and the summaries`,
  );
  const agent = createAgent(handle, {
    llm,
    systemPrompt: 'You are a novelist. Write the next chapter of the story, consistent with everything so far.',
  });
  const chapters: ChapterReport[] = [];
  try {
    for (let chapter = 1; chapter <= (options.chapters ?? 8); chapter++) {
      const result = await agent.run(`Write chapter ${chapter}.`, { waitForIdle: true });
      const stats = result.payloads[result.payloads.length - 1]!;
      const report = {
        chapter,
        messagesSent: stats.messages.output,
        tokensSent: stats.output_tokens,
        summarized: stats.summarized,
        memoryTokens: stats.sections.memory,
      };
      chapters.push(report);
      log(
        `chapter ${chapter}: sent ${report.messagesSent} messages / ${report.tokensSent} ` +
          `tokens; ${report.summarized} messages summarized (${report.memoryTokens} summary tokens)`,
      );
    }
  } finally {
    await handle.dispose();
  }
  return { llm: llm.name, offline: llm.offline, chapters };
}

if (require.main === module) {
  runNovelist().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
