import * as path from 'node:path';
import { Ajv } from 'ajv';
import { validateManifest } from '@ctxkit/core';
import manifest from '../plugin.json';
import { resolveSummarizationConfig, SUMMARIZATION_DEFAULTS } from './summarization-config';

const schema = manifest.configSchema as { properties: Record<string, { default?: unknown }> };

function validateConfig(config: Record<string, unknown>): { valid: boolean; value: Record<string, unknown> } {
  const ajv = new Ajv({ useDefaults: true, allErrors: true });
  const value = structuredClone(config);
  return { valid: ajv.validate(manifest.configSchema, value) as boolean, value };
}

describe('plugin.json', () => {
  it('is a valid strategy plugin manifest', () => {
    const result = validateManifest(path.join(__dirname, '..', 'plugin.json'));
    expect(result.errors).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('accepts the README example config unchanged and fills the documented defaults', () => {
    const { valid, value } = validateConfig({ compressionModel: 'gemini-1.5-flash', threshold: 20 });
    expect(valid).toBe(true);
    expect(value).toEqual({ ...SUMMARIZATION_DEFAULTS, compressionModel: 'gemini-1.5-flash', threshold: 20 });
  });

  it('rejects unknown fields and out-of-range values', () => {
    expect(validateConfig({ threshhold: 20 }).valid).toBe(false);
    expect(validateConfig({ threshold: 0 }).valid).toBe(false);
    expect(validateConfig({ safetyMarginRatio: 1 }).valid).toBe(false);
  });
});

describe('resolveSummarizationConfig', () => {
  it('has the same defaults as the configSchema', () => {
    const fromSchema = Object.fromEntries(Object.entries(schema.properties).map(([key, property]) => [key, property.default]));
    expect(fromSchema).toEqual({ ...SUMMARIZATION_DEFAULTS });
  });

  it('fills defaults without mutating its argument', () => {
    const config = Object.freeze({ threshold: 20 });
    expect(resolveSummarizationConfig(config)).toEqual({ ...SUMMARIZATION_DEFAULTS, threshold: 20 });
    expect(config).toEqual({ threshold: 20 });
  });

  it('reports every invalid field at once', () => {
    expect(() => resolveSummarizationConfig({ threshold: -1, summarizer: 'gpt' as never, extra: 1 } as never)).toThrow(
      expect.objectContaining({ code: 'CTXKIT_CONFIG_INVALID', issues: expect.arrayContaining([expect.objectContaining({ pointer: '/threshold' }), expect.objectContaining({ pointer: '/summarizer' }), expect.objectContaining({ pointer: '/extra' })]) }),
    );
  });
});
