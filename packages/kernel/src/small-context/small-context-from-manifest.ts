import type { SmallContextMode, SmallContextOptions, SmallContextOverride } from './small-context-plan';

const OVERRIDES = new Set<unknown>(['auto', 'on', 'off', true, false]);

/**
 * The small-context settings an agent manifest declares (validated by the agent manifest schema):
 * `compactSystemPrompt`, `essentialTools`, `smallContextThreshold` and `smallContextModes`
 * (`{ "A": "on" | "off" | "auto", … }`). `undefined` when it declares none.
 */
export function smallContextFromManifest(
  manifest: Readonly<Record<string, unknown>> | undefined,
): SmallContextOptions | undefined {
  if (!manifest) return undefined;
  const options: SmallContextOptions = {};
  if (typeof manifest.compactSystemPrompt === 'string') options.compactSystemPrompt = manifest.compactSystemPrompt;
  if (Array.isArray(manifest.essentialTools))
    options.essentialTools = manifest.essentialTools.filter((name): name is string => typeof name === 'string');
  if (typeof manifest.smallContextThreshold === 'number') options.threshold = manifest.smallContextThreshold;
  const modes = manifest.smallContextModes;
  if (modes && typeof modes === 'object') {
    const forced: Partial<Record<SmallContextMode, SmallContextOverride>> = {};
    for (const mode of ['A', 'B', 'C', 'D'] as const) {
      const value = (modes as Record<string, unknown>)[mode];
      if (OVERRIDES.has(value)) forced[mode] = value as SmallContextOverride;
    }
    options.modes = forced;
  }
  return Object.keys(options).length > 0 ? options : undefined;
}
