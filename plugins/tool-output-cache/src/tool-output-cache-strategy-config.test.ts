import * as fs from 'node:fs';
import * as path from 'node:path';

import { ConfigValidationError } from '@ctxkit/core';
import { createConformanceContext } from '@ctxkit/core/testing';

import manifest from '../plugin.json';
import { createStrategy } from './tool-output-cache-strategy';
import {
  type CompactionConfig,
  type MicroCompactConfig,
  type ResolvedToolOutputCacheStrategyConfig,
  resolveToolOutputCacheStrategyConfig,
  TOOL_OUTPUT_CACHE_STRATEGY_ID,
  type ToolOutputCacheConfig,
} from './tool-output-cache-strategy-config';

/**
 * Every key of each config type, once: the compiler rejects these objects when a key of the type is
 * missing here or a key here is not one of the type.
 */
const TYPE_KEYS: Record<keyof ResolvedToolOutputCacheStrategyConfig, true> = {
  model: true,
  maxContextTokens: true,
  reserveOutputTokens: true,
  safetyMarginRatio: true,
  cutBackRatio: true,
  keepFirstShare: true,
  memoryRole: true,
  minReclaimTokens: true,
  toolOutputCache: true,
  microCompact: true,
  compaction: true,
};
const SECTION_KEYS: { [Section in 'toolOutputCache' | 'microCompact' | 'compaction']: Record<string, true> } = {
  toolOutputCache: {
    enabled: true,
    contextBudgetTokens: true,
    maxMessageBytes: true,
    maxLineLength: true,
    offerTools: true,
  } satisfies Record<keyof ToolOutputCacheConfig, true>,
  microCompact: { enabled: true, when: true, keepRecent: true, minContentLength: true } satisfies Record<
    keyof MicroCompactConfig,
    true
  >,
  compaction: {
    enabled: true,
    auto: true,
    thresholdRatio: true,
    engine: true,
    model: true,
    summaryPrompt: true,
    summaryDirectives: true,
    retainPrompt: true,
    retainDirectives: true,
    retainLastTurns: true,
    retryAfterTokens: true,
    retryBackoffFactor: true,
    maxSummaryTokens: true,
    timeoutMs: true,
    maxWaitMs: true,
    failureBackoffMs: true,
    maxFailureBackoffMs: true,
  } satisfies Record<keyof CompactionConfig, true>,
};

interface SchemaProperty {
  default?: unknown;
  properties?: Record<string, SchemaProperty>;
}
const schema = manifest.configSchema as { properties: Record<string, SchemaProperty> };

/** What the schema's `default`s come to for `{}`: a section's default object filled with its fields' defaults. */
function schemaDefaults(properties: Record<string, SchemaProperty>): Record<string, unknown> {
  const defaults: Record<string, unknown> = {};
  for (const [name, property] of Object.entries(properties)) {
    if (property.default === undefined) continue;
    defaults[name] = property.properties
      ? { ...(property.default as object), ...schemaDefaults(property.properties) }
      : property.default;
  }
  return defaults;
}

const docsPage = path.join(__dirname, '..', '..', '..', 'docs', 'strategies', 'tool-output-cache.md');

describe('resolveToolOutputCacheStrategyConfig', () => {
  describe('#defaults', () => {
    it(
      "takes every default from plugin.json's configSchema, and the config types have exactly the schema's " + 'fields',
      () => {
        expect(resolveToolOutputCacheStrategyConfig({})).toEqual(schemaDefaults(schema.properties));
        expect(Object.keys(TYPE_KEYS).sort()).toEqual(Object.keys(schema.properties).sort());
        for (const [section, keys] of Object.entries(SECTION_KEYS)) {
          expect([section, Object.keys(keys).sort()]).toEqual([
            section,
            Object.keys(schema.properties[section]!.properties!).sort(),
          ]);
        }
      },
    );

    it('applies the defaults on a copy: a frozen config is fine and stays as it was', () => {
      const directives = ['keep the ids'];
      Object.freeze(directives);
      const input = Object.freeze({ model: 'gpt-4o', compaction: Object.freeze({ summaryDirectives: directives }) });
      const config = resolveToolOutputCacheStrategyConfig(input);
      expect(config.compaction).toEqual({
        ...(schemaDefaults(schema.properties).compaction as object),
        summaryDirectives: ['keep the ids'],
      });
      expect(config.compaction.summaryDirectives).not.toBe(input.compaction.summaryDirectives);
      expect(input).toEqual({ model: 'gpt-4o', compaction: { summaryDirectives: ['keep the ids'] } });
      expect(resolveToolOutputCacheStrategyConfig(null)).toEqual(resolveToolOutputCacheStrategyConfig(undefined));
    });

    it("documents every section's fields in the docs page's tables, with the schema's default", () => {
      const lines = fs.readFileSync(docsPage, 'utf8').split('\n');
      for (const section of Object.keys(SECTION_KEYS)) {
        const head = lines.findIndex((line) => line.startsWith(`| \`${section}\` field |`));
        expect([section, head >= 0]).toEqual([section, true]);
        const end = lines.findIndex((line, index) => index > head && !line.startsWith('|'));
        const rows = lines.slice(head + 2, end);
        for (const [name, property] of Object.entries(schema.properties[section]!.properties!)) {
          const row = rows.find((line) => line.startsWith(`| \`${name}\` |`));
          expect([section, name, row !== undefined]).toEqual([section, name, true]);
          const documented = /^`([^`]*)`/.exec(row!.split(' | ')[1]!.trim());
          // A long default (the summary prompt) is described in words instead.
          if (documented)
            expect([section, name, documented[1]]).toEqual([section, name, JSON.stringify(property.default)]);
        }
      }
    });
  });

  describe('#validation', () => {
    it(
      'rejects what the loader rejects, listing every invalid field: also for a direct caller of ' + 'createStrategy',
      () => {
        const invalid = { safetyMarginRatio: 1, microCompact: { keepRecent: -1 }, compaction: { treshold: 0.5 } };
        const error = (() => {
          try {
            resolveToolOutputCacheStrategyConfig(invalid as never);
          } catch (caught) {
            return caught;
          }
          return undefined;
        })();
        expect(error).toBeInstanceOf(ConfigValidationError);
        expect((error as ConfigValidationError).code).toBe('CTXKIT_CONFIG_INVALID');
        expect((error as ConfigValidationError).issues.map((issue) => issue.pointer).sort()).toEqual([
          '/compaction/treshold',
          '/microCompact/keepRecent',
          '/safetyMarginRatio',
        ]);
        const { context } = createConformanceContext(
          'session-1',
          { strategyId: TOOL_OUTPUT_CACHE_STRATEGY_ID },
          undefined,
        );
        expect(() => createStrategy(invalid as never, context)).toThrow(
          expect.objectContaining({ code: 'CTXKIT_CONFIG_INVALID' }),
        );
        expect(createStrategy({ microCompact: { keepRecent: 0 } }, context).config.microCompact.keepRecent).toBe(0);
      },
    );
  });
});
