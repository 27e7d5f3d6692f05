import type { JsonSchema } from '@ctxkit/core';
import { canonicalJson, mergeState } from '../extraction/merge-state';
import type { ExtractionSource } from '../extraction/extraction-input';
import type { ExtractionOutcome, ExtractionRequest, StateExtractor } from '../extraction/state-extractor';
import type { CompiledStateSchema } from '../schema/state-schema';
import type { EntityState } from '../state/entity-state';
import { fieldRecognizer, type FieldRecognizer } from './field-recognizer';
import { enumMentions, jsonKeyedValues, textTokens } from './text-candidates';

/** The name the offline extractor carries in versions, events, stats and reports. */
export const OFFLINE_EXTRACTOR_NAME = 'offline-extractor';

/** Options of {@link OfflineExtractor}. */
export interface OfflineExtractorOptions {
  /**
   * Sources whose free text is searched for enum values and recognisable shapes. JSON key cues
   * (a value under a key named like the field) are read from every source.
   * @default ['user']
   */
  shapeSources?: ReadonlyArray<ExtractionSource['kind']>;
}

interface Candidate {
  field: string;
  value: string | number;
  index: number;
  position: number;
  /** Found under a JSON key named like the field (unambiguous). */
  cued: boolean;
}

function isNumericField(schema: Readonly<JsonSchema>): boolean {
  const type = schema['type'];
  const types = Array.isArray(type) ? type : [type];
  return !types.includes('string') && (types.includes('number') || types.includes('integer'));
}

/**
 * The deterministic extractor used when the agent has no language model (named as offline wherever
 * it is used). It fills the fields a schema makes recognisable:
 * - `enum`: a value mentioned in the text (case-insensitive, `_`/`-`/space interchangeable);
 * - `pattern` and `format` (`date`, `date-time`, `email`, `time`): a token that ajv accepts;
 * - `examples` (without pattern or format): a token of the same shape as an example;
 * - arrays of such items: every distinct value, newest last, up to `maxItems` (the newest kept);
 * - JSON key cues: in tool-call arguments and tool outputs, a value under a key named like the
 *   field (or, for an array, its singular) is taken when the field accepts it.
 * A scalar field takes the newest mention. A free-text value that two scalar fields would both
 * accept is ambiguous and fills neither (key cues still apply). Free-text fields, booleans, objects
 * and arrays of objects are left untouched. Same input, same state: the same result.
 */
export class OfflineExtractor implements StateExtractor {
  readonly kind = 'offline' as const;
  readonly name = OFFLINE_EXTRACTOR_NAME;
  readonly offline = true;
  private readonly recognizers: FieldRecognizer[];
  private readonly shapeSources: ReadonlyArray<ExtractionSource['kind']>;
  private readonly numeric: Set<string>;

  constructor(schema: CompiledStateSchema, options: OfflineExtractorOptions = {}) {
    this.recognizers = schema.fields.map((field) => fieldRecognizer(field, schema.schema)).filter((r): r is FieldRecognizer => r !== null);
    this.shapeSources = options.shapeSources ?? ['user'];
    this.numeric = new Set(
      schema.fields
        .filter((field) => {
          const items = (field.schema as JsonSchema)['items'];
          return isNumericField(field.schema) || (items !== null && typeof items === 'object' && !Array.isArray(items) && isNumericField(items as JsonSchema));
        })
        .map((field) => field.name),
    );
  }

  /** Fields this extractor can fill for the schema it was built with. */
  recognisedFields(): string[] {
    return this.recognizers.map((r) => r.field);
  }

  async extract(request: ExtractionRequest): Promise<ExtractionOutcome> {
    const { schema } = request;
    const sources = [...request.input.context, ...request.input.userMessages].sort((a, b) => a.index - b.index);
    const candidates: Candidate[] = [];
    for (const source of sources) {
      for (const keyed of jsonKeyedValues(source.text)) {
        if (typeof keyed.value === 'boolean') continue;
        for (const recognizer of this.recognizers) {
          if (!recognizer.keys.includes(keyed.key)) continue;
          const value = this.accept(schema, recognizer, keyed.value);
          if (value !== undefined) candidates.push({ field: recognizer.field, value, index: source.index, position: keyed.position, cued: true });
        }
      }
      if (!this.shapeSources.includes(source.kind)) continue;
      const tokens = textTokens(source.text);
      for (const recognizer of this.recognizers) {
        if (recognizer.enumValues) {
          for (const mention of enumMentions(source.text, recognizer.enumValues)) {
            const original = recognizer.enumValues.find((value) => String(value) === mention.value)!;
            const value = this.accept(schema, recognizer, original);
            if (value !== undefined) candidates.push({ field: recognizer.field, value, index: source.index, position: mention.position, cued: false });
          }
          continue;
        }
        for (const token of tokens) {
          const value = this.accept(schema, recognizer, token.value);
          if (value !== undefined) candidates.push({ field: recognizer.field, value, index: source.index, position: token.position, cued: false });
        }
      }
    }
    const update = this.proposeUpdate(request.state, candidates);
    if (Object.keys(update).length === 0) return { ok: true, state: structuredClone(request.state) as EntityState, diff: [], attempts: 1 };
    const merged = mergeState(schema, request.state, update);
    return merged.ok ? { ok: true, state: merged.state, diff: merged.diff, attempts: 1 } : { ok: false, reason: 'invalid-answer', errors: merged.errors, attempts: 1 };
  }

  /** The typed value when the recognizer and the schema accept `raw`, else `undefined`. */
  private accept(schema: CompiledStateSchema, recognizer: FieldRecognizer, raw: string | number): string | number | undefined {
    let value: string | number = raw;
    if (this.numeric.has(recognizer.field)) {
      if (typeof raw === 'string') {
        if (!/^-?[0-9]+(\.[0-9]+)?$/.test(raw)) return undefined;
        value = Number(raw);
      }
    } else if (typeof raw === 'number') {
      value = String(raw);
    }
    if (recognizer.enumValues) {
      if (!recognizer.enumValues.some((allowed) => allowed === value)) return undefined;
    } else if (!recognizer.validatedBySchema) {
      if (!recognizer.shapes.some((shape) => shape.test(String(value)))) return undefined;
    }
    return schema.acceptsValue(recognizer.field, recognizer.isArray ? [value] : value) ? value : undefined;
  }

  private proposeUpdate(state: Readonly<EntityState>, candidates: Candidate[]): EntityState {
    const scalarFields = new Set(this.recognizers.filter((r) => !r.isArray).map((r) => r.field));
    const scalarClaims = new Map<string, Set<string>>();
    for (const candidate of candidates) {
      if (candidate.cued || !scalarFields.has(candidate.field)) continue;
      const key = `${candidate.index}:${candidate.position}:${candidate.value}`;
      const claims = scalarClaims.get(key) ?? new Set<string>();
      claims.add(candidate.field);
      scalarClaims.set(key, claims);
    }
    const usable = candidates.filter(
      (candidate) => candidate.cued || !scalarFields.has(candidate.field) || (scalarClaims.get(`${candidate.index}:${candidate.position}:${candidate.value}`)?.size ?? 0) <= 1,
    );
    usable.sort((a, b) => a.index - b.index || a.position - b.position);
    const update: EntityState = {};
    for (const recognizer of this.recognizers) {
      const mine = usable.filter((candidate) => candidate.field === recognizer.field);
      if (mine.length === 0) continue;
      const current = state[recognizer.field];
      if (!recognizer.isArray) {
        const newest = mine[mine.length - 1]!.value;
        if (canonicalJson(newest) !== canonicalJson(current)) update[recognizer.field] = newest;
        continue;
      }
      const merged: unknown[] = Array.isArray(current) ? [...current] : [];
      const seen = new Set(merged.map(canonicalJson));
      for (const candidate of mine) {
        const key = canonicalJson(candidate.value);
        if (seen.has(key)) continue;
        seen.add(key);
        merged.push(candidate.value);
      }
      const capped = recognizer.maxItems !== undefined && merged.length > recognizer.maxItems ? merged.slice(merged.length - recognizer.maxItems) : merged;
      if (canonicalJson(capped) !== canonicalJson(current)) update[recognizer.field] = capped;
    }
    return update;
  }
}
