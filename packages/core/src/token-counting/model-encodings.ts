import type { IModelRegistry } from '../models/model-registry';

/** BPE encodings the exact counters support. */
export type BpeEncodingName = 'o200k_base' | 'cl100k_base';

/** How a model name maps to an encoding, and how exact that is. */
export interface ResolvedEncoding {
  encoding: BpeEncodingName;
  /** True when the model's own tokenizer differs (Claude, Gemini, local models) or the model is unknown. */
  approximate: boolean;
  /** Plain-language reason, shown in `meta().note`. */
  note?: string;
}

const CL100K_PATTERN = /^(gpt-4(?![o.]|-turbo-20\d\d)(-|$)|gpt-4-turbo|gpt-3\.5|gpt-35|text-embedding-(ada|3))/;
const O200K_EXACT_PATTERN = /^(gpt-4o|chatgpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|gpt-oss|o1|o3|o4)(\b|-|$)/;
const APPROXIMATE_FAMILIES: ReadonlyArray<[RegExp, string]> = [
  [/^claude/, 'Anthropic models use their own tokenizer; o200k_base counts approximate it'],
  [/^gemini/, 'Gemini models use their own tokenizer; o200k_base counts approximate it'],
  [
    /^(llama|qwen|mistral|mixtral|phi|gemma|deepseek|local|openrouter)/,
    'local models use their own tokenizer; o200k_base counts approximate it',
  ],
];

/**
 * Resolves a model name or alias to the BPE encoding used to count for it (model aliases):
 * gpt-4o / gpt-4.1 / o-series / gpt-5 use `o200k_base` exactly; gpt-4 and gpt-3.5-turbo use
 * `cl100k_base`; claude-*, gemini-* and local models use `o200k_base` as a stated approximation; an
 * unknown name still resolves (to `o200k_base`, stated as approximate). The model *registry* is strict
 * about windows; counting never is. When a registry knows the model, its `encoding` wins.
 */
export function resolveModelEncoding(model: string, registry?: IModelRegistry): ResolvedEncoding {
  const name = model.trim().toLowerCase();
  const info = registry?.find(model);
  if (info) {
    return info.approximateEncoding
      ? {
          encoding: info.encoding,
          approximate: true,
          note: `${info.id}: its own tokenizer differs; ${info.encoding} counts approximate it`,
        }
      : { encoding: info.encoding, approximate: false };
  }
  if (O200K_EXACT_PATTERN.test(name)) return { encoding: 'o200k_base', approximate: false };
  if (CL100K_PATTERN.test(name)) return { encoding: 'cl100k_base', approximate: false };
  for (const [pattern, note] of APPROXIMATE_FAMILIES) {
    if (pattern.test(name)) return { encoding: 'o200k_base', approximate: true, note };
  }
  return { encoding: 'o200k_base', approximate: true, note: `unknown model "${model}": counted with o200k_base` };
}
