import fc from 'fast-check';

import { arbConformanceCase, DEFAULT_CASE_BUDGETS } from './arbitraries';
import type { CaseBudget, CaseFamily, ConformanceCase } from './conformance-case';
import { budgetCases, conversationCases, hostileCases, longHistoryCases, reportingCases } from './conformance-cases';
import { ConformanceError, type ConformanceFailure } from './conformance-failure';
import { BUNDLED_CONVERSATIONS } from './conversation-record';
import { PINS_CASE_NAME, runPinsCase } from './pins-conformance';
import { type PluginConformanceSource, pluginConformanceTarget } from './plugin-conformance-target';
import { type ConformanceTarget, runConformanceCase } from './run-conformance-case';

/** A test-framework `describe` (jest, vitest, mocha, node:test all fit). */
export type DescribeFn = (name: string, body: () => void) => void;
/** A test-framework `it` taking an optional timeout. */
export type ItFn = (name: string, body: () => Promise<void>, timeout?: number) => void;

/**
 * How much of the suite runs. `quick` (the default) keeps every case family but samples: 12
 * generated histories, 8 records of each bundled conversation file with up to 8 composePayload
 * calls each; a simple strategy passes it in seconds. `full` replays every record of every bundled
 * file (up to 16 calls each) and runs 40 generated histories: run it before a release or in CI,
 * with `depth: 'full'` or the environment variable `CTXKIT_CONFORMANCE_DEPTH=full`.
 */
export type ConformanceDepth = 'quick' | 'full';

interface DepthSettings {
  numRuns: number;
  recordsPerFile: number | undefined;
  maxComposePerRecord: number;
}

const DEPTH_SETTINGS: Record<ConformanceDepth, DepthSettings> = {
  quick: { numRuns: 12, recordsPerFile: 8, maxComposePerRecord: 8 },
  full: { numRuns: 40, recordsPerFile: undefined, maxComposePerRecord: 16 },
};

/** The depth asked for: the option, else `CTXKIT_CONFORMANCE_DEPTH`, else `quick`. */
function depthOf(options: Pick<ConformanceOptions, 'depth'>): ConformanceDepth {
  if (options.depth) return options.depth;
  const fromEnvironment = process.env.CTXKIT_CONFORMANCE_DEPTH;
  if (fromEnvironment === undefined || fromEnvironment === '' || fromEnvironment === 'quick') return 'quick';
  if (fromEnvironment === 'full') return 'full';
  throw new TypeError(
    `CTXKIT_CONFORMANCE_DEPTH is "${fromEnvironment}"; use "quick" or "full" (or unset it for quick).`,
  );
}

/** The options with the depth's sampling filled in where the caller did not set them. */
function settingsOf<TConfig>(options: ConformanceOptions<TConfig>): DepthSettings & { depth: ConformanceDepth } {
  const depth = depthOf(options);
  const defaults = DEPTH_SETTINGS[depth];
  return {
    depth,
    numRuns: options.numRuns ?? defaults.numRuns,
    recordsPerFile: options.recordsPerFile ?? defaults.recordsPerFile,
    maxComposePerRecord: options.maxComposePerRecord ?? defaults.maxComposePerRecord,
  };
}

/**
 * Options of {@link runConformance} and {@link checkConformance}: what the suite runs and how. The
 * strategy is named by its plugin (`plugin`: its directory), loaded as a host loads it: its
 * `plugin.json` read and validated, every case's config validated by its own schema with the
 * defaults applied.
 */
export interface ConformanceOptions<TConfig = Record<string, unknown>> extends Omit<
  ConformanceTarget<TConfig>,
  'factory' | 'config'
> {
  /**
   * The plugin's directory or `plugin.json`: its manifest validated, each case's config validated by
   * its `configSchema` with the defaults applied, and (without `factory`) its entry imported by the
   * runtime's loader: the plugin as a host gets it (an invalid `plugin.json` fails the test file).
   */
  plugin: string;
  /**
   * Tested instead of the factory the loader imports from the manifest's `entry` (the built output):
   * the source's `createStrategy`, to test sources without a build. The manifest and its config
   * schema are still the plugin's.
   * @default the entry's `createStrategy`, imported by the runtime's loader
   */
  factory?: ConformanceTarget<TConfig>['factory'];
  /**
   * Your part of each case's config (the case adds its budget), or the whole config of a case budget; validated by the
   * plugin's schema. @default {}
   */
  config?: PluginConformanceSource<TConfig>['config'];
  /** How much of the suite runs (see {@link ConformanceDepth}). @default `CTXKIT_CONFORMANCE_DEPTH`, else 'quick' */
  depth?: ConformanceDepth;
  /**
   * Which case families to run, or extra cases of your own. `long-history` includes the pins case
   * (the strategy behind the session layer, with a pinned message and a pinned text).
   * @default every family: property, hostile, budget, long-history, reporting, conversation
   */
  cases?: ReadonlyArray<CaseFamily | ConformanceCase>;
  /** Budgets of the generated cases. @default 2K, 8K and 32K */
  budgets?: readonly CaseBudget[];
  /** Runs of the property-based case. @default 12 quick, 40 full */
  numRuns?: number;
  /** fast-check seed, fixed so that CI is reproducible. @default 20250101 */
  seed?: number;
  /** composePayload calls per bundled record at most (evenly sampled). @default 8 quick, 16 full */
  maxComposePerRecord?: number;
  /** Records replayed per bundled conversation file (evenly sampled). @default 8 quick, every record full */
  recordsPerFile?: number;
  /** Test framework functions. @default the global `describe` / `it` */
  describe?: DescribeFn;
  it?: ItFn;
  /** Timeout per test, ms. @default 120000 */
  timeout?: number;
}

/** What {@link checkConformance} found: every failure, the cases run and the composePayload calls made. */
export interface ConformanceReport {
  failures: ConformanceFailure[];
  cases: number;
  composeCalls: number;
}

const ALL_FAMILIES: readonly CaseFamily[] = [
  'property',
  'hostile',
  'budget',
  'long-history',
  'reporting',
  'conversation',
];

function familiesOf(options: Pick<ConformanceOptions, 'cases'>): {
  families: Set<CaseFamily>;
  custom: ConformanceCase[];
} {
  const entries = options.cases ?? ALL_FAMILIES;
  return {
    families: new Set(entries.filter((entry): entry is CaseFamily => typeof entry === 'string')),
    custom: entries.filter((entry): entry is ConformanceCase => typeof entry !== 'string'),
  };
}

/** Runs cases one after another and collects every failure. */
async function runConformanceCases<TConfig>(
  target: ConformanceTarget<TConfig>,
  cases: readonly ConformanceCase[],
): Promise<ConformanceReport> {
  const report: ConformanceReport = { failures: [], cases: 0, composeCalls: 0 };
  for (const testCase of cases) {
    const result = await runConformanceCase(target, testCase);
    report.cases++;
    report.composeCalls += result.composeCalls;
    report.failures.push(...result.failures);
  }
  return report;
}

/**
 * Property-based run: `numRuns` generated cases (seeded). Returns the failures of the first
 * counterexample fast-check finds (shrunk), or none.
 */
async function runPropertyCases<TConfig>(
  target: ConformanceTarget<TConfig>,
  options: { budgets?: readonly CaseBudget[]; numRuns?: number; seed?: number } = {},
): Promise<ConformanceReport> {
  const report: ConformanceReport = { failures: [], cases: 0, composeCalls: 0 };
  let last: ConformanceFailure[] = [];
  const result = await fc.check(
    fc.asyncProperty(arbConformanceCase(options.budgets ?? DEFAULT_CASE_BUDGETS), async (testCase) => {
      const outcome = await runConformanceCase(target, testCase);
      report.cases++;
      report.composeCalls += outcome.composeCalls;
      if (outcome.failures.length > 0) {
        last = outcome.failures;
        return false;
      }
      return true;
    }),
    { numRuns: options.numRuns ?? 40, seed: options.seed ?? 20250101 },
  );
  if (result.failed) {
    const example = result.counterexample?.[0];
    report.failures.push(
      ...last.map((failure) => ({
        ...failure,
        case:
          `${failure.case ?? 'generated'} (seed ${result.seed}, ` +
          `path ${result.counterexamplePath ?? '?'}, ${example?.history.length ?? '?'} messages)`,
      })),
    );
  }
  return report;
}

/**
 * Runs the conformance suite without a test framework and returns every failure. The same
 * families as {@link runConformance}.
 */
export async function checkConformance<TConfig>(options: ConformanceOptions<TConfig>): Promise<ConformanceReport> {
  const { families, custom } = familiesOf(options);
  const settings = settingsOf(options);
  const target = conformanceTargetOf(options);
  const reports: ConformanceReport[] = [];
  if (families.has('property')) reports.push(await runPropertyCases(target, { ...options, numRuns: settings.numRuns }));
  if (families.has('long-history')) {
    const pins = await runPinsCase(target);
    reports.push({ failures: pins.failures, cases: 1, composeCalls: pins.composeCalls });
  }
  const cases: ConformanceCase[] = [
    ...(families.has('hostile') ? hostileCases() : []),
    ...(families.has('budget') ? budgetCases() : []),
    ...(families.has('long-history') ? longHistoryCases() : []),
    ...(families.has('reporting') ? reportingCases() : []),
    ...(families.has('conversation') ? BUNDLED_CONVERSATIONS.flatMap((name) => conversationCases(name, settings)) : []),
    ...custom,
  ];
  reports.push(await runConformanceCases(target, cases));
  return reports.reduce(
    (sum, r) => ({
      failures: [...sum.failures, ...r.failures],
      cases: sum.cases + r.cases,
      composeCalls: sum.composeCalls + r.composeCalls,
    }),
    { failures: [], cases: 0, composeCalls: 0 },
  );
}

/**
 * The target of the options' plugin: manifest and config schema from its `plugin.json`, the factory
 * its entry exports as the runtime's loader imports it (or the factory given instead).
 * @throws TypeError when the options name no plugin
 */
function conformanceTargetOf<TConfig>(options: ConformanceOptions<TConfig>): ConformanceTarget<TConfig> {
  const { plugin, factory, config } = options as Partial<ConformanceOptions<TConfig>>;
  if (typeof plugin !== 'string') {
    throw new TypeError(
      'The conformance suite loads the strategy through its plugin: pass plugin, the directory holding its ' +
        "plugin.json (path.join(__dirname, '..') from src/).",
    );
  }
  return {
    ...options,
    ...pluginConformanceTarget<TConfig>({
      plugin,
      ...(factory ? { factory } : {}),
      ...(config === undefined ? {} : { config }),
    }),
  };
}

function assertNoFailures(subject: string, report: ConformanceReport): void {
  if (report.failures.length > 0) throw new ConformanceError(subject, report.failures);
}

/**
 * The conformance suite (shipped like ESLint's RuleTester). Registers one test
 * per case family under `describe(name)`, using jest's globals unless `describe`/`it` are given:
 * property-based cases over generated histories, hostile inputs, budget overflow, a 10,000-message
 * history, pins kept through the session layer on a long history, small-budget coding sessions whose
 * every reduction must be reported by exactly one event, and records of the bundled tau-bench and OpenHands
 * conversations replayed turn by turn (a sample by default; every record with `depth: 'full'`, see {@link
 * ConformanceDepth}). Each test fails with a {@link ConformanceError} listing what broke.
 *
 * @throws ConformanceError (`CTXKIT_STRATEGY_ERROR`) from a test, when the strategy breaks an invariant
 */
export function runConformance<TConfig = Record<string, unknown>>(
  name: string,
  options: ConformanceOptions<TConfig>,
): void {
  const g = globalThis as { describe?: DescribeFn; it?: ItFn };
  const describeFn = options.describe ?? g.describe;
  const itFn = options.it ?? g.it;
  if (!describeFn || !itFn) {
    throw new TypeError(
      'runConformance needs a test framework: run it inside jest (or pass describe and it), or call ' +
        'checkConformance() instead.',
    );
  }
  const timeout = options.timeout ?? 120_000;
  const { families, custom } = familiesOf(options);
  const settings = settingsOf(options);
  const target = conformanceTargetOf(options);
  describeFn(name, () => {
    if (families.has('property')) {
      itFn(
        `keeps every invariant on ${settings.numRuns} generated histories (tool-call groups, Japanese and emoji, ` +
          `huge outputs, reused ids)`,
        async () => {
          assertNoFailures(name, await runPropertyCases(target, { ...options, numRuns: settings.numRuns }));
        },
        timeout,
      );
    }
    if (families.has('hostile')) {
      for (const testCase of hostileCases()) {
        itFn(
          `handles hostile input: ${testCase.name}`,
          async () => assertNoFailures(name, await runConformanceCases(target, [testCase])),
          timeout,
        );
      }
    }
    if (families.has('budget')) {
      for (const testCase of budgetCases()) {
        itFn(
          `rejects with CTXKIT_BUDGET_EXCEEDED: ${testCase.name}`,
          async () => assertNoFailures(name, await runConformanceCases(target, [testCase])),
          timeout,
        );
      }
    }
    if (families.has('long-history')) {
      for (const testCase of longHistoryCases()) {
        itFn(
          `keeps every invariant on ${testCase.name}`,
          async () => assertNoFailures(name, await runConformanceCases(target, [testCase])),
          timeout,
        );
      }
      itFn(
        `keeps every invariant with ${PINS_CASE_NAME}`,
        async () =>
          assertNoFailures(name, { failures: (await runPinsCase(target)).failures, cases: 1, composeCalls: 0 }),
        timeout,
      );
    }
    if (families.has('reporting')) {
      for (const testCase of reportingCases()) {
        itFn(
          `reports ${testCase.name}`,
          async () => assertNoFailures(name, await runConformanceCases(target, [testCase])),
          timeout,
        );
      }
    }
    if (families.has('conversation')) {
      for (const file of BUNDLED_CONVERSATIONS) {
        const which =
          settings.recordsPerFile === undefined ? 'every record' : `${settings.recordsPerFile} sampled records`;
        itFn(
          `keeps every invariant replaying ${which} of ${file} turn by turn (${settings.depth})`,
          async () => {
            assertNoFailures(name, await runConformanceCases(target, conversationCases(file, settings)));
          },
          timeout,
        );
      }
    }
    for (const testCase of custom) {
      itFn(
        `keeps every invariant on ${testCase.name}`,
        async () => assertNoFailures(name, await runConformanceCases(target, [testCase])),
        timeout,
      );
    }
  });
}
