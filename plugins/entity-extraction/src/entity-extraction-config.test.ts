import * as fs from 'node:fs';
import * as path from 'node:path';

import { ConfigValidationError } from '@ctxkit/core';

import manifest from '../plugin.json';
import { resolveEntityExtractionConfig } from './entity-extraction-config';

const docsPage = path.join(__dirname, '..', '..', '..', 'docs', 'strategies', 'entity-extraction.md');

describe('resolveEntityExtractionConfig', () => {
  describe('#defaults', () => {
    it('applies the configSchema defaults on a copy of the config', () => {
      const input = Object.freeze({ stateSchema: Object.freeze({ type: 'object', properties: {} }) });
      const config = resolveEntityExtractionConfig(input);
      expect(config).toEqual({
        stateSchema: { type: 'object', properties: {} },
        extractionModel: null,
        recentTurns: 1,
        lean: false,
        memoryShare: 0.8,
        memoryRole: 'user',
        extractionPrompt: null,
        stateMaxTokens: 1024,
        extractionMaxOutputTokens: 1024,
        extractionTimeoutMs: 30000,
        extractionWaitMs: 3000,
        extractionRetryBackoffMs: 30000,
        model: null,
        maxContextTokens: null,
        reserveOutputTokens: null,
        safetyMarginRatio: 0.1,
        cutBackRatio: 0.6,
        keepFirstShare: 0.3,
        recall: null,
      });
      expect(input).toEqual({ stateSchema: { type: 'object', properties: {} } });
    });

    it('documents every config field with the schema default in the docs page table', () => {
      const table = fs.readFileSync(docsPage, 'utf8');
      const properties = manifest.configSchema.properties as Record<string, { default?: unknown }>;
      for (const [name, property] of Object.entries(properties)) {
        const row = table.split('\n').find((line) => line.startsWith(`| \`${name}\` |`));
        expect(row).toBeDefined();
        const cells = row!.split(' | ');
        const documented = cells[2]!.replace(/`/g, '').trim();
        expect(documented).toBe(property.default === undefined ? 'required' : JSON.stringify(property.default));
      }
    });
  });

  describe('#validation', () => {
    it('rejects a config without stateSchema and with unknown fields, listing every issue', () => {
      try {
        resolveEntityExtractionConfig({ recentTurns: 'two', extra: 1 });
        throw new Error('expected a ConfigValidationError');
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigValidationError);
        expect((error as ConfigValidationError).issues.length).toBe(3);
      }
    });
  });
});
