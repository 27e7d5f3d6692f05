/** @jest-environment <rootDir>/../../packages/ai-sdk/src/testing/native-require.test.env.ts */
// The AI SDK ships ES modules only; the environment gives Node's own require to load it (Node ≥ 20.19).
jest.mock('ai', () => nativeRequire('ai'));
jest.mock('ai/test', () => nativeRequire('ai/test'));

import 'reflect-metadata';

import http from 'node:http';
import type { AddressInfo } from 'node:net';

import { embedderFromEmbeddingModel } from '@ctxkit/ai-sdk';
import { type ChatMessage, createContextRuntime, hasWhenIdle, type ITextEmbedder } from '@ctxkit/core';
import type { RecallStats } from '@ctxkit/core/strategy-kit';
import { OpenAICompatibleEmbedder } from '@ctxkit/kernel';
import { embedderFromLangChain } from '@ctxkit/langchain';
import { Embeddings } from '@langchain/core/embeddings';
import { MockEmbeddingModelV4 } from 'ai/test';

import { recallFillerTurn } from './recall-filler-turn';

declare const nativeRequire: NodeJS.Require;

/**
 * Recall by meaning through each embedder source, as a host wires it: `createContextRuntime({ embedder })`
 * and an agent on `std-recall-strategy`. Each source runs the same scripted vectors: the question and
 * one old turn point one way, every other text another. The question shares no word with that turn,
 * so only its meaning can bring it back: recalled with embeddings, not with `recall.embeddings: "off"`.
 */

const BASE = Date.UTC(2023, 4, 8, 13, 56);
const MINUTE = 60_000;
const TURNS = 45;
const TARGET_TURN = 4;
const TARGET = 'I adopted a golden retriever puppy named Biscuit last spring.';
const QUESTION = 'Which pet joined our household?';
const SYSTEM_PROMPT = 'You are a helpful assistant.';

function turnMessages(turn: number): ChatMessage[] {
  if (turn === TARGET_TURN)
    return [
      { role: 'user', content: TARGET },
      { role: 'assistant', content: 'Congratulations, that sounds delightful.' },
    ];
  return recallFillerTurn(turn);
}

const DIMENSIONS = 8;

/**
 * The scripted vectors: the target turn and the question along the first axis (cosine 0.995), every
 * other text along one of the other axes (cosine 0 with both).
 */
function vectorOf(text: string): number[] {
  const vector = new Array<number>(DIMENSIONS).fill(0);
  if (text.includes('Biscuit')) vector[0] = 1;
  else if (text.includes(QUESTION)) {
    vector[0] = 1;
    vector[1] = 0.1;
  } else {
    let hash = 0;
    for (const char of text) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
    vector[1 + (hash % (DIMENSIONS - 1))] = 1;
  }
  return vector;
}

interface Asked {
  text: string;
  recall: RecallStats;
  /** Texts the embedder was asked to embed, over the whole run. */
  embedded: number;
}

/**
 * Plays the conversation through an agent with `embedder`, waits for its background embedding, then asks the question.
 */
async function ask(
  embedder: ITextEmbedder,
  embedded: () => number,
  recall: Record<string, unknown> = {},
): Promise<Asked> {
  let clock = BASE;
  const runtime = await createContextRuntime({ embedder, now: () => clock });
  try {
    const agent = await runtime.loadAgent({
      id: 'assistant',
      contextStrategy: {
        type: 'plugin',
        pluginId: 'std-recall-strategy',
        config: { maxContextTokens: 2000, reserveOutputTokens: 0, recall },
      },
    });
    const session = agent.forSession('chat-1');
    let history: ChatMessage[] = [];
    for (let turn = 0; turn < TURNS; turn++) {
      clock = BASE + turn * MINUTE;
      history = [...history, ...turnMessages(turn)];
      await session.onTurnComplete(history);
    }
    if (!hasWhenIdle(session)) throw new Error('std-recall-strategy has no whenIdle');
    await session.whenIdle();
    clock = BASE + TURNS * MINUTE;
    const payload = await session.composePayload(SYSTEM_PROMPT, [...history, { role: 'user', content: QUESTION }], []);
    const text = payload.messages
      .map((message) => (typeof message.content === 'string' ? message.content : JSON.stringify(message.content)))
      .join('\n');
    return { text, recall: payload.stats.extra!.recall as RecallStats, embedded: embedded() };
  } finally {
    await runtime.dispose();
  }
}

/** The scripted model of a source, and how many texts it was asked to embed. */
interface Source {
  embedder: ITextEmbedder;
  embedded(): number;
}

/** A LangChain `Embeddings` with the scripted vectors. */
class ScriptedEmbeddings extends Embeddings {
  model = 'scripted-embed';
  texts = 0;

  constructor() {
    super({});
  }

  async embedDocuments(documents: string[]): Promise<number[][]> {
    this.texts += documents.length;
    return documents.map(vectorOf);
  }

  async embedQuery(document: string): Promise<number[]> {
    this.texts += 1;
    return vectorOf(document);
  }
}

/** A loopback server speaking the OpenAI embeddings API with the scripted vectors. */
class EmbeddingsServer {
  texts = 0;
  private constructor(private readonly server: http.Server) {}

  static async start(): Promise<EmbeddingsServer> {
    let instance: EmbeddingsServer | undefined;
    const server = http.createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      request.on('end', () => {
        const { input, model } = JSON.parse(body) as { input: string[]; model: string };
        if (request.method !== 'POST' || request.url !== '/v1/embeddings') {
          response.writeHead(404).end();
          return;
        }
        instance!.texts += input.length;
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(
          JSON.stringify({
            object: 'list',
            model,
            data: input.map((text, index) => ({ object: 'embedding', index, embedding: vectorOf(text) })),
            usage: { prompt_tokens: input.length, total_tokens: input.length },
          }),
        );
      });
    });
    instance = new EmbeddingsServer(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return instance;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

let server: EmbeddingsServer;

beforeAll(async () => {
  server = await EmbeddingsServer.start();
});

afterAll(async () => {
  await server?.close();
});

const SOURCES: Array<[string, () => Source]> = [
  [
    'AI SDK embedding model (embedderFromEmbeddingModel)',
    () => {
      const model = new MockEmbeddingModelV4({
        provider: 'scripted',
        modelId: 'scripted-embed',
        maxEmbeddingsPerCall: 64,
        doEmbed: async ({ values }: { values: string[] }) => ({ embeddings: values.map(vectorOf), warnings: [] }),
      });
      return {
        embedder: embedderFromEmbeddingModel(model),
        embedded: () => model.doEmbedCalls.reduce((sum, call) => sum + call.values.length, 0),
      };
    },
  ],
  [
    'LangChain Embeddings (embedderFromLangChain)',
    () => {
      const embeddings = new ScriptedEmbeddings();
      return { embedder: embedderFromLangChain(embeddings), embedded: () => embeddings.texts };
    },
  ],
  [
    'OpenAI-compatible embeddings API (OpenAICompatibleEmbedder)',
    () => {
      const before = server.texts;
      const embedder = new OpenAICompatibleEmbedder({
        baseURL: `${server.url}/v1`,
        apiKey: 'sk-test',
        model: 'scripted-embed',
        env: {},
      });
      return { embedder, embedded: () => server.texts - before };
    },
  ],
];

describe('std-recall-strategy with an embedder', () => {
  describe.each(SOURCES)('%s', (_name, source) => {
    it('recalls the turn that means what the question asks although they share no word', async () => {
      const { embedder, embedded } = source();
      const asked = await ask(embedder, embedded);
      expect(asked.recall.embedding).toBe('used');
      expect(asked.text).toContain('<recalled-turns>');
      expect(asked.text).toContain(`user: ${TARGET}`);
      expect(asked.recall.hits).toContainEqual(
        expect.objectContaining({ sessionId: 'chat-1', from: TARGET_TURN * 2, to: TARGET_TURN * 2 + 1 }),
      );
      // Every indexed message and the question were embedded.
      expect(asked.embedded).toBeGreaterThanOrEqual(TURNS * 2 + 1);
    });

    it('does not recall it with recall.embeddings "off", and never calls the embedder', async () => {
      const { embedder, embedded } = source();
      const asked = await ask(embedder, embedded, { embeddings: 'off' });
      expect(asked.recall.embedding).toBe('none');
      expect(asked.text).not.toContain('Biscuit');
      expect(asked.recall.hits.filter((hit) => hit.from === TARGET_TURN * 2)).toEqual([]);
      expect(asked.embedded).toBe(0);
    });
  });
});
