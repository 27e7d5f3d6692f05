import * as path from 'node:path';

import {
  createContextRuntime,
  CtxkitError,
  type ManifestIssue,
  type StrategyContext,
  validateManifest,
} from '@ctxkit/core';
import { Ajv } from 'ajv';
import fc from 'fast-check';

import manifest from '../plugin.json';
import { createStrategy } from './create-summarization-strategy';
import { resolveSummarizationConfig, SUMMARIZATION_DEFAULTS, type SummarizationConfig } from './summarization-config';

const properties = manifest.configSchema.properties as Record<string, { default?: unknown }>;

/**
 * Every key of the TypeScript type, once: the compiler rejects this object when a key of
 * SummarizationConfig is missing here or a key here is not one of the type.
 */
const TYPE_KEYS: Record<keyof SummarizationConfig, true> = {
  compressionModel: true,
  threshold: true,
  batchTurns: true,
  summaryMaxTokens: true,
  memoryShare: true,
  memoryRole: true,
  summaryInputMaxTokens: true,
  summarizer: true,
  engine: true,
  summaryPrompt: true,
  checkSummaries: true,
  summaryScript: true,
  model: true,
  maxContextTokens: true,
  reserveOutputTokens: true,
  safetyMarginRatio: true,
  cutBackRatio: true,
  maxConsecutiveFailures: true,
  retryBackoffMs: true,
  summaryTimeoutMs: true,
  summaryWaitMs: true,
  idleCompaction: true,
  recall: true,
};

/** The config the loader hands the factory for `config` (none when the loader rejects it), and any error. */
async function throughLoader(config: unknown): Promise<{ config?: Record<string, unknown>; error?: unknown }> {
  const runtime = await createContextRuntime({ discoverInstalled: false });
  let received: Record<string, unknown> | undefined;
  runtime.registerStrategy(
    { id: manifest.id, configSchema: manifest.configSchema },
    (validated: Record<string, unknown>, context: StrategyContext) => {
      received = validated;
      return createStrategy(validated as Partial<SummarizationConfig>, context);
    },
  );
  try {
    const agent = await runtime.loadAgent({
      id: 'config-check',
      contextStrategy: { type: 'plugin', pluginId: manifest.id, config },
    });
    await agent.forSession('s').composePayload('system', [{ role: 'user', content: 'hi' }], []);
    return { config: received };
  } catch (error) {
    return { config: received, error };
  } finally {
    await runtime.dispose();
  }
}

function directly(config: unknown): { config?: Record<string, unknown>; error?: unknown } {
  try {
    return {
      config: resolveSummarizationConfig(config as Partial<SummarizationConfig>) as unknown as Record<string, unknown>,
    };
  } catch (error) {
    return { error };
  }
}

function pointers(error: unknown, prefix = ''): string[] {
  const issues = (error as { issues?: ManifestIssue[] }).issues ?? [];
  return issues.map((issue) => issue.pointer.slice(prefix.length)).sort();
}

describe('plugin.json', () => {
  it('is a valid strategy plugin manifest', () => {
    const result = validateManifest(path.join(__dirname, '..', 'plugin.json'));
    expect(result.errors).toEqual([]);
    expect(result.valid).toBe(true);
  });
});

describe('SummarizationConfig and the configSchema', () => {
  it('name the same fields: every schema property is a key of the type and every key a property', () => {
    expect(Object.keys(properties).sort()).toEqual(Object.keys(TYPE_KEYS).sort());
  });

  it('give every field a default, and the defaults are valid against the schema', () => {
    for (const [key, property] of Object.entries(properties))
      expect({ key, hasDefault: 'default' in property }).toEqual({ key, hasDefault: true });
    const validate = new Ajv({ allErrors: true, strict: false }).compile(manifest.configSchema);
    const defaults = Object.fromEntries(Object.entries(properties).map(([key, property]) => [key, property.default]));
    expect(validate(defaults)).toBe(true);
    expect({ ...SUMMARIZATION_DEFAULTS }).toEqual(defaults);
  });
});

describe('resolveSummarizationConfig', () => {
  it('accepts the README example config unchanged and fills the schema defaults, without mutating its argument', () => {
    const config = Object.freeze({ compressionModel: 'gemini-1.5-flash', threshold: 20 });
    expect(resolveSummarizationConfig(config)).toEqual({
      ...SUMMARIZATION_DEFAULTS,
      compressionModel: 'gemini-1.5-flash',
      threshold: 20,
    });
    expect(config).toEqual({ compressionModel: 'gemini-1.5-flash', threshold: 20 });
    expect(resolveSummarizationConfig(undefined)).toEqual(SUMMARIZATION_DEFAULTS);
  });

  it('reports every invalid field at once, typed, with what was expected and the fix', () => {
    let thrown: unknown;
    try {
      resolveSummarizationConfig({
        threshold: -1,
        summarizer: 'gpt',
        safetyMarginRatio: 1,
        model: '',
        extra: 1,
      } as never);
    } catch (error) {
      thrown = error;
    }
    expect(CtxkitError.isInstance(thrown)).toBe(true);
    expect(thrown).toMatchObject({ code: 'CTXKIT_CONFIG_INVALID' });
    expect(pointers(thrown)).toEqual(['/extra', '/model', '/safetyMarginRatio', '/summarizer', '/threshold']);
    const message = (thrown as Error).message;
    expect(message).toContain('#/threshold: must be >= 1 (expected minimum 1)');
    expect(message).toContain('one of: "auto", "llm", "offline"');
    expect(message).toContain('unknown property "extra"');
    expect(message).toContain('Fix: ');
  });

  it('rejects what is not a JSON object', () => {
    expect(() => resolveSummarizationConfig([] as never)).toThrow(
      expect.objectContaining({ code: 'CTXKIT_CONFIG_INVALID' }),
    );
    expect(() => resolveSummarizationConfig({ threshold: () => 3 } as never)).toThrow(
      expect.objectContaining({ code: 'CTXKIT_CONFIG_INVALID' }),
    );
  });

  it('gives a direct caller exactly what the loader gives the factory, for valid and invalid configs', async () => {
    const keys = [...Object.keys(properties), 'threshhold'];
    const value = fc.oneof(
      fc.constantFrom<unknown>(
        null,
        '',
        'auto',
        'llm',
        'offline',
        'gpt-4o',
        0,
        1,
        0.5,
        1.5,
        -1,
        31,
        255,
        256,
        10_000,
        true,
      ),
      fc.integer({ min: -10, max: 100_000 }),
      fc.double({ min: -1, max: 2, noNaN: true }),
      fc.string({ maxLength: 12 }),
    );
    await fc.assert(
      fc.asyncProperty(fc.dictionary(fc.constantFrom(...keys), value, { maxKeys: 4 }), async (config) => {
        const loaded = await throughLoader(config);
        const direct = directly(config);
        if (loaded.config !== undefined) {
          // The factory re-validates the loader's config: it must accept it unchanged.
          expect(direct.error).toBeUndefined();
          expect(direct.config).toEqual(loaded.config);
          expect(resolveSummarizationConfig(loaded.config as Partial<SummarizationConfig>)).toEqual(loaded.config);
        } else {
          expect(loaded.error).toMatchObject({ code: 'CTXKIT_CONFIG_INVALID' });
          expect(direct.error).toMatchObject({ code: 'CTXKIT_CONFIG_INVALID' });
          expect(pointers(direct.error)).toEqual(pointers(loaded.error, '/contextStrategy/config'));
        }
      }),
      { numRuns: 60, seed: 20250101 },
    );
  });
});
