import { ErrorCodes, LLMResponseError } from '@ctxkit/core';
import { Embeddings } from '@langchain/core/embeddings';
import { SyntheticEmbeddings } from '@langchain/core/utils/testing';

import { embedderFromLangChain } from './embeddings-embedder';

const texts = ['Where is my refund?', 'The card was charged twice.', 'Flight HAT170 moved to May 21.'];

/** Deterministic embeddings configured like a provider's: a model name, dimensions, every call kept. */
class RecordingEmbeddings extends Embeddings {
  readonly calls: string[][] = [];
  model = 'embed-small';
  dimensions: number | undefined;

  constructor(private readonly answer = async (documents: string[]): Promise<number[][]> => documents.map(vectorOf)) {
    super({});
  }

  embedDocuments(documents: string[]): Promise<number[][]> {
    this.calls.push(documents);
    return this.answer(documents);
  }

  async embedQuery(document: string): Promise<number[]> {
    return vectorOf(document);
  }
}

/** Its length, its vowels, its first character code. */
function vectorOf(text: string): number[] {
  return [text.length, (text.match(/[aeiou]/g) ?? []).length, text.charCodeAt(0)];
}

describe('embedderFromLangChain', () => {
  describe('#model', () => {
    it("names the model by the instance's model field, with its dimensions when it has them", () => {
      const embeddings = new RecordingEmbeddings();
      expect(embedderFromLangChain(embeddings).model).toBe('embed-small');
      embeddings.dimensions = 256;
      expect(embedderFromLangChain(embeddings).model).toBe('embed-small@256');
    });

    it('falls back to the modelName field, then to the class name; the option wins', () => {
      const older = Object.assign(new SyntheticEmbeddings(), { modelName: 'legacy-embed' });
      expect(embedderFromLangChain(older).model).toBe('legacy-embed');
      expect(embedderFromLangChain(new SyntheticEmbeddings()).model).toBe('SyntheticEmbeddings');
      const named = embedderFromLangChain(new RecordingEmbeddings(), { modelName: 'support-embeddings' });
      expect(named.model).toBe('support-embeddings');
    });
  });

  describe('#embed', () => {
    it("returns embedDocuments' vectors, one per text in the texts' order", async () => {
      const embeddings = new RecordingEmbeddings();
      const vectors = await embedderFromLangChain(embeddings).embed(texts);
      expect(vectors).toEqual(texts.map(vectorOf));
      expect(embeddings.calls).toEqual([texts]);
    });

    it("embeds with LangChain's own SyntheticEmbeddings", async () => {
      const synthetic = new SyntheticEmbeddings({ vectorSize: 6 });
      const vectors = await embedderFromLangChain(synthetic).embed(texts);
      expect(vectors).toEqual(await synthetic.embedDocuments([...texts]));
      expect(vectors.every((vector) => vector.length === 6)).toBe(true);
    });

    it("rejects at once with the signal's reason when the caller aborts (embedDocuments takes no signal)", async () => {
      const embeddings = new RecordingEmbeddings(() => new Promise(() => undefined));
      const controller = new AbortController();
      const pending = embedderFromLangChain(embeddings).embed(texts, { signal: controller.signal });
      setTimeout(() => controller.abort(new Error('agent disposed')), 10);
      await expect(pending).rejects.toThrow('agent disposed');
    });

    it('calls nothing when the signal has already aborted', async () => {
      const embeddings = new RecordingEmbeddings();
      const controller = new AbortController();
      controller.abort();
      const pending = embedderFromLangChain(embeddings).embed(texts, { signal: controller.signal });
      await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
      expect(embeddings.calls).toHaveLength(0);
    });

    it('lets what embedDocuments throws through unchanged', async () => {
      const refusal = Object.assign(new Error('401 Incorrect API key provided'), { status: 401 });
      const embeddings = new RecordingEmbeddings(() => Promise.reject(refusal));
      await expect(embedderFromLangChain(embeddings).embed(texts)).rejects.toBe(refusal);
    });

    it('rejects a missing vector or vectors of different lengths with LLMResponseError', async () => {
      const short = new RecordingEmbeddings(async (documents) => documents.slice(1).map(vectorOf));
      await expect(embedderFromLangChain(short).embed(texts)).rejects.toThrow(/expected 3 vectors, got 2/);
      const ragged = new RecordingEmbeddings(async (batch) => batch.map((text, at) => vectorOf(text).slice(at)));
      const error = await embedderFromLangChain(ragged)
        .embed(texts)
        .catch((reason: unknown) => reason);
      expect(error).toBeInstanceOf(LLMResponseError);
      expect((error as LLMResponseError).code).toBe(ErrorCodes.LLM_RESPONSE_INVALID);
    });

    it('calls nothing for no texts', async () => {
      const embeddings = new RecordingEmbeddings();
      await expect(embedderFromLangChain(embeddings).embed([])).resolves.toEqual([]);
      expect(embeddings.calls).toHaveLength(0);
    });
  });
});
