/**
 * The four small-context modes: A history compression, B split reading, C compact prompt and tools, D advice to the
 * user.
 */
export type SmallContextMode = 'A' | 'B' | 'C' | 'D';

/** Every mode, in order. */
export const SMALL_CONTEXT_MODES: readonly SmallContextMode[] = ['A', 'B', 'C', 'D'];

/**
 * How hard a mode works at a window size (the small-context matrix):
 * - `full` (◎): always, as far as it goes;
 * - `on` (○): switched on;
 * - `partial` (△ for C): only when the full system prompt and tool definitions take more than a quarter of the window;
 * - `when-needed` (△ / "when needed"): only when the budget asks for it (see each mode);
 * - `off` (✕).
 */
export type SmallContextIntensity = 'full' | 'on' | 'partial' | 'when-needed' | 'off';

/** A forced setting for one mode: `auto` follows the matrix. `true`/`false` are `on`/`off`. */
export type SmallContextOverride = 'auto' | 'on' | 'off' | boolean;

/** Default window below which the small-context modes switch on (16K). */
export const DEFAULT_SMALL_CONTEXT_THRESHOLD = 16_384;

/**
 * Small-context settings of an agent (agent options `smallContext`, or the agent manifest's
 * `compactSystemPrompt`, `essentialTools`, `smallContextThreshold`, `smallContextModes`).
 */
export interface SmallContextOptions {
  /**
   * The window (tokens) the matrix's middle boundary sits at; the others scale with it: below
   * threshold/2 is the smallest tier, below the threshold the second, below 2×threshold the third.
   * @default 16384 (tiers < 8K, 8K–16K, 16K–32K, ≥ 32K)
   */
  threshold?: number;
  /** A shorter system prompt used by mode C (~500 tokens works well). */
  compactSystemPrompt?: string;
  /** Names of the user tools still sent by mode C (e.g. bash, read, write, edit, glob, grep). Strategy tools stay. */
  essentialTools?: readonly string[];
  /** Forces modes on or off. @default every mode `auto` */
  modes?: Partial<Record<SmallContextMode, SmallContextOverride>>;
}

/** The matrix row chosen for a window, with the overrides applied. */
export interface SmallContextPlan {
  contextWindow: number;
  threshold: number;
  /** The matrix row: `< 8K`, `8K-16K`, `16K-32K`, `>= 32K` for the default threshold. */
  tier: 0 | 1 | 2 | 3;
  modes: Record<SmallContextMode, SmallContextIntensity>;
  /** Modes set by an override rather than the matrix. */
  forced: SmallContextMode[];
}

/** The small-context matrix, one row per tier. */
const MATRIX: ReadonlyArray<Record<SmallContextMode, SmallContextIntensity>> = [
  { A: 'full', B: 'full', C: 'full', D: 'when-needed' },
  { A: 'on', B: 'on', C: 'partial', D: 'when-needed' },
  { A: 'when-needed', B: 'when-needed', C: 'off', D: 'when-needed' },
  { A: 'when-needed', B: 'off', C: 'off', D: 'off' },
];

function forcedIntensity(
  mode: SmallContextMode,
  override: SmallContextOverride | undefined,
): SmallContextIntensity | undefined {
  if (override === undefined || override === 'auto') return undefined;
  if (override === false || override === 'off') return 'off';
  return mode === 'D' ? 'when-needed' : 'on';
}

/**
 * Picks the small-context matrix row for a context window and applies the forced settings. Pure.
 * @throws RangeError for a non-positive window or threshold
 * @see docs/10-small-context.md
 */
export function planSmallContext(contextWindow: number, options: SmallContextOptions = {}): SmallContextPlan {
  const threshold = options.threshold ?? DEFAULT_SMALL_CONTEXT_THRESHOLD;
  if (!(contextWindow > 0))
    throw new RangeError(`planSmallContext: the context window must be positive (got ${contextWindow})`);
  if (!(threshold > 0)) throw new RangeError(`planSmallContext: the threshold must be positive (got ${threshold})`);
  const tier: SmallContextPlan['tier'] =
    contextWindow < threshold / 2 ? 0 : contextWindow < threshold ? 1 : contextWindow < threshold * 2 ? 2 : 3;
  const modes = { ...MATRIX[tier]! };
  const forced: SmallContextMode[] = [];
  for (const mode of SMALL_CONTEXT_MODES) {
    const intensity = forcedIntensity(mode, options.modes?.[mode]);
    if (intensity === undefined) continue;
    modes[mode] = intensity;
    forced.push(mode);
  }
  return { contextWindow, threshold, tier, modes, forced };
}

/** A short label of a plan's tier for reports (`8K-16K`). */
export function tierLabel(plan: SmallContextPlan): string {
  const k = (tokens: number) => `${Math.round(tokens / 1024)}K`;
  const t = plan.threshold;
  return [`< ${k(t / 2)}`, `${k(t / 2)}-${k(t)}`, `${k(t)}-${k(t * 2)}`, `>= ${k(t * 2)}`][plan.tier]!;
}
