import type { StrategyNames } from './strategy-names';

/** The `@ctxkit/core` dependency written into the package. */
export interface TemplateCoreDependency {
  /** The package.json spec: a semver range (`^0.1.0`) or a `file:` tarball path. */
  spec: string;
  /** The core version the plugin is written for (its `engines.ctxkit` is `^<version>`). */
  version: string;
}

/** One file of the scaffold: path relative to the package, and its text. */
export interface ScaffoldFile {
  path: string;
  text: string;
}

/**
 * The files of a new strategy plugin package: a manifest with a configSchema (the source of the
 * defaults), a class implementing IContextManager on core's window selection and stats builder, a
 * factory, a unit test, the conformance test, and a README. The generated strategy is real: the
 * sliding window plus a pinned note kept right after the system prompt, so it passes the
 * conformance suite as generated, and it is the place to start changing. `core` is the
 * `@ctxkit/core` dependency: a range from the registry or a workspace, or a local tarball.
 */
export function strategyTemplate(names: StrategyNames, core: TemplateCoreDependency): ScaffoldFile[] {
  const { kebab, pascal, pluginId, packageName } = names;
  const coreVersion = core.version;
  const fromTarball = core.spec.startsWith('file:');
  const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;
  return [
    {
      path: 'package.json',
      text: json({
        name: packageName,
        version: '0.1.0',
        description: `ctxkit context strategy plugin ${pluginId}`,
        license: 'MIT',
        keywords: ['ctxkit-plugin'],
        ctxkit: { plugin: './plugin.json' },
        main: './dist/index.js',
        types: './dist/index.d.ts',
        files: ['dist', '!dist/**/*.test.*', 'plugin.json', 'README.md'],
        scripts: { build: 'tsc -p tsconfig.json', test: 'jest' },
        dependencies: { '@ctxkit/core': core.spec },
        devDependencies: {
          '@types/jest': '30.0.0',
          '@types/node': '20.19.43',
          'fast-check': '4.10.2',
          jest: '30.5.2',
          'ts-jest': '29.4.15',
          typescript: '6.0.3',
        },
      }),
    },
    {
      path: 'plugin.json',
      text: json({
        id: pluginId,
        name: `${pascal} strategy`,
        version: '0.1.0',
        kind: 'context-strategy',
        description: 'The sliding window plus a pinned note kept right after the system prompt.',
        entry: './dist/index.js',
        engines: { ctxkit: `^${coreVersion}` },
        configSchema: {
          type: 'object',
          additionalProperties: false,
          properties: {
            model: {
              type: 'string',
              minLength: 1,
              default: 'gpt-4o',
              description: 'Model for token counting and, without maxContextTokens, the context window.',
            },
            maxContextTokens: {
              type: ['integer', 'null'],
              minimum: 1,
              default: null,
              description: "Ceiling of payload + output; null uses the model's window.",
            },
            reserveOutputTokens: {
              type: ['integer', 'null'],
              minimum: 0,
              default: null,
              description: 'Tokens kept for the answer; null reserves min(4096, ceiling / 8).',
            },
            safetyMarginRatio: {
              type: 'number',
              minimum: 0,
              exclusiveMaximum: 1,
              default: 0.1,
              description: 'Share of the ceiling kept free.',
            },
            note: {
              type: ['string', 'null'],
              default: null,
              description:
                'A note pinned right after the system prompt (a memory block; shortened before the newest user ' +
                'message loses its room).',
            },
          },
        },
      }),
    },
    {
      path: 'tsconfig.json',
      text: json({
        compilerOptions: {
          target: 'ES2022',
          module: 'nodenext',
          moduleResolution: 'nodenext',
          strict: true,
          noUncheckedIndexedAccess: true,
          esModuleInterop: true,
          skipLibCheck: true,
          declaration: true,
          rootDir: 'src',
          outDir: 'dist',
          types: ['jest', 'node'],
        },
        include: ['src/**/*.ts'],
      }),
    },
    {
      path: 'jest.config.js',
      text: `// ts-jest keeps TypeScript's own emitter (decorator metadata stays, should you add tsyringe services).
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/src'],
  transform: { '^.+\\\\.ts$': ['ts-jest', { tsconfig: { isolatedModules: true } }] },
  testTimeout: 120000,
};
`,
    },
    {
      path: `src/${kebab}-config.ts`,
      text: `/** Config of ${pluginId}. Defaults live in plugin.json's configSchema (ajv applies them). */
export interface ${pascal}Config {
  /** @default 'gpt-4o' */
  model: string;
  /** @default null (the model's window) */
  maxContextTokens: number | null;
  /** @default null (min(4096, ceiling / 8)) */
  reserveOutputTokens: number | null;
  /** @default 0.1 */
  safetyMarginRatio: number;
  /** @default null */
  note: string | null;
}

export const ${constant(pascal)}_DEFAULTS: ${pascal}Config = {
  model: 'gpt-4o',
  maxContextTokens: null,
  reserveOutputTokens: null,
  safetyMarginRatio: 0.1,
  note: null,
};
`,
    },
    {
      path: `src/${kebab}-strategy.ts`,
      text:
        `import { type ChatMessage, type ComposeOptions, type IContextManager, type LLMPayload, type ` +
        `StrategyContext, type ToolDefinition } from '@ctxkit/core';
import { assertHistoryShape, budgetFromConfig, PayloadComposer } from '@ctxkit/core/strategy-kit';
import type { ${pascal}Config } from './${kebab}-config';

export const STRATEGY_ID = '${pluginId}';

/**
 * ${pascal}: the sliding window plus a pinned note right after the system prompt.
 *
 * Core's PayloadComposer does the budget work: the system prompt and tools first (a typed error when
 * they alone exceed the budget), the RAG context, your memory blocks (here the note) up to their
 * share of the room, then the newest history that fits by whole tool-call groups, with every
 * reduction in stats and as an event. Make it yours by changing what goes into the memory blocks; keep what
 * the conformance suite checks.
 */
export class ${pascal}Strategy implements IContextManager {
  private readonly composer: PayloadComposer;
  private turn = 0;

  constructor(
    private readonly config: ${pascal}Config,
    context: StrategyContext,
  ) {
    // maxContextTokens when set, else the model's window from the registry, less the output reservation and margin.
    const budget = budgetFromConfig(config, config.model, context.models);
    this.composer = new PayloadComposer({ owner: context, model: config.model, counter: context.counter, budget: ` +
        `() => budget });
  }

  async composePayload(systemPrompt: string, history: ChatMessage[], tools: ToolDefinition[], ragContext?: string, ` +
        `options: ComposeOptions = {}): Promise<LLMPayload> {
    assertHistoryShape(history); // unknown roles and malformed messages: a typed CTXKIT_HISTORY_INVALID
    const { payload } = this.composer.compose({
      systemPrompt,
      history,
      tools,
      ragContext,
      ...options,
      turn: this.turn,
      memory: this.config.note ? [{ name: 'pinned note', content: this.config.note, placement: 'after-system' }] : [],
    });
    return payload;
  }

  async onTurnComplete(newHistory: ChatMessage[]): Promise<void> {
    this.turn = newHistory.filter((message) => message.role === 'user').length;
  }
}
`,
    },
    {
      path: 'src/index.ts',
      text: `import type { StrategyFactory } from '@ctxkit/core';
import { ${constant(pascal)}_DEFAULTS, type ${pascal}Config } from './${kebab}-config';
import { ${pascal}Strategy } from './${kebab}-strategy';

/** The plugin's factory: the runtime passes the config validated against plugin.json, defaults applied. */
export const createStrategy: StrategyFactory<Partial<${pascal}Config>> = (config, context) =>
  new ${pascal}Strategy({ ...${constant(pascal)}_DEFAULTS, ...config }, context);

export { ${pascal}Strategy, STRATEGY_ID } from './${kebab}-strategy';
export { ${constant(pascal)}_DEFAULTS } from './${kebab}-config';
export type { ${pascal}Config } from './${kebab}-config';
`,
    },
    {
      path: `src/${kebab}-strategy.test.ts`,
      text:
        `import { createConformanceContext } from '@ctxkit/core/testing';
import { createStrategy } from './index';

describe('${pascal}Strategy', () => {
  describe('#composePayload', () => {
    it('puts the pinned note right after the system prompt', async () => {
      const { context } = createConformanceContext('unit-test');
      const strategy = await createStrategy({ maxContextTokens: 4096, note: 'Always answer in French.' }, context);
      const payload = await strategy.composePayload('You are helpful.', [{ role: 'user', content: 'Hello' }], []);
      expect(payload.messages.map((message) => message.content)).toEqual(['You are helpful.', 'Always answer in ` +
        `French.', 'Hello']);
      expect(payload.stats.sections.memory).toBeGreaterThan(0);
    });
  });
});
`,
    },
    {
      path: 'src/conformance.test.ts',
      text:
        `import * as path from 'node:path';
import { runConformance } from '@ctxkit/core/testing';
import { createStrategy } from './index';

// The shared conformance suite: budget, tool-call pairs, newest user message, no mutation,
// nothing silently lost, pins, determinism, on generated, hostile and real conversations. The plugin
// as a host loads it: plugin.json validated, each case's config validated by its configSchema with
// the defaults applied; the factory from the sources (without \`factory\`, the built entry).
runConformance('${pluginId}', { plugin: path.join(__dirname, '..'), factory: createStrategy, config: { note: ` +
        `'Pinned: be concise.' } });
`,
    },
    {
      path: 'README.md',
      text: `# ${pluginId}

A ctxkit context strategy plugin: the sliding window plus a pinned note kept right after the system
prompt. Generated by \`ctxkit new-strategy ${kebab}\`; change \`src/${kebab}-strategy.ts\` to make it yours.

## Use it in an agent

\`\`\`json
{
  "id": "my-agent",
  "contextStrategy": { "type": "plugin", "pluginId": "${pluginId}", "config": { "note": "Always answer in French." } }
}
\`\`\`

Install this package next to your agent (it declares itself with \`"ctxkit": { "plugin": "./plugin.json" }\`),
or pass its directory in \`createContextRuntime({ pluginDirs: [...] })\`.

## Config

| key | default | meaning |
| --- | --- | --- |
| \`model\` | \`gpt-4o\` | model for counting and, without \`maxContextTokens\`, the window |
| \`maxContextTokens\` | \`null\` | ceiling of payload + output |
| \`reserveOutputTokens\` | \`null\` | tokens kept for the answer |
| \`safetyMarginRatio\` | \`0.1\` | share of the ceiling kept free |
| \`note\` | \`null\` | note pinned after the system prompt |

## Develop

\`\`\`bash
npm install
npm test        # unit test + the ctxkit conformance suite
npm run build   # dist/ for the runtime to load
\`\`\`
${
  fromTarball
    ? `
\`@ctxkit/core\` comes from a local \`npm pack\` tarball: \`"@ctxkit/core": "${core.spec}"\`.
Before publishing this package, change it to \`"^${coreVersion}"\`.
`
    : ''
}`,
    },
  ];
}

function constant(pascal: string): string {
  return pascal.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase();
}
