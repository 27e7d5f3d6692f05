import type { ExtractionSource } from '../extraction/extraction-input';
import { canonicalJson, mergeState } from '../extraction/merge-state';
import type { ExtractionOutcome, ExtractionRequest, StateExtractor } from '../extraction/state-extractor';
import type { CompiledStateSchema } from '../schema/state-schema';
import type { EntityState } from '../state/entity-state';
import { mergeArrayItems } from './array-field-merge';
import { datesInWords, isoDate } from './dates-in-words';
import {
  type FieldRecognizer,
  fieldRecognizer,
  type ObjectFieldRecognizer,
  type ScalarFieldRecognizer,
} from './field-recognizer';
import { JsonKeyScreen } from './json-key-screen';
import { jsonKeyedNodes } from './json-keyed-nodes';
import { isNegatedMention } from './negated-mention';
import { projectOnSchema } from './object-projection';
import { referenceYear } from './reference-year';
import { SchemaVerdicts } from './schema-verdicts';
import { enumMentions, type TextCandidate, textTokens } from './text-candidates';

/** The name the offline extractor carries in versions, events, stats and reports. */
export const OFFLINE_EXTRACTOR_NAME = 'offline-extractor';

/** Options of {@link OfflineExtractor}. */
export interface OfflineExtractorOptions {
  /**
   * Sources whose free text is searched for enum values, recognisable shapes and dates in words.
   * JSON key cues (a value under a key named like the field) are read from every source.
   * @default ['user']
   */
  shapeSources?: ReadonlyArray<ExtractionSource['kind']>;
}

interface Candidate {
  field: string;
  value: unknown;
  index: number;
  position: number;
  /** Found under a JSON key named like the field (unambiguous). */
  cued: boolean;
  /** Read from a tool result (looked up by the agent) rather than said by the user or the agent's calls. */
  lookedUp: boolean;
}

/**
 * The typed value when the recognizer and the schema accept `raw`, else `undefined` (the cheap tests first, the
 * schema's validator last).
 */
function acceptScalar(
  verdicts: SchemaVerdicts,
  recognizer: ScalarFieldRecognizer,
  raw: string | number,
): string | number | undefined {
  let value: string | number = raw;
  if (recognizer.numeric) {
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
  if (recognizer.pattern && typeof value === 'string' && !recognizer.pattern.test(value)) return undefined;
  return verdicts.accepts(recognizer, value) ? value : undefined;
}

/**
 * False when no word-like token of `text` can be the field's value, so the text need not be split:
 * the field is recognised by shapes with white space only, or its pattern (without anchors or
 * lookarounds) matches nowhere in the text.
 */
function tokensMayMatch(recognizer: ScalarFieldRecognizer, text: string): boolean {
  if (!recognizer.validatedBySchema && recognizer.tokenShapes.length === 0) return false;
  return !recognizer.textPattern || recognizer.numeric || recognizer.textPattern.test(text);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * True for the source a read point ends with: a user message or a tool result (where the strategy starts an
 * extraction).
 */
function endsReadPoint(source: Readonly<ExtractionSource>): boolean {
  return source.kind === 'user' || source.kind === 'tool-output';
}

/**
 * The deterministic extractor used when the agent has no language model (named as offline wherever
 * it is used). It reads the new user messages, the agent's tool-call arguments and the new tool
 * results (as they arrive), and fills the fields a schema makes recognisable:
 * - `enum`: a value mentioned in the text (case-insensitive, `_`/`-`/space interchangeable);
 * - `pattern` and `format` (`date`, `date-time`, `email`, `time`): a token that ajv accepts;
 *   for `format: "date"`, also a date written in words ("May 20th", "the 15th of May 2024",
 *   "20 May"), as `YYYY-MM-DD`, the year inferred when absent (see {@link referenceYear});
 * - `examples` (without pattern or format): a token of the same shape as an example;
 * - arrays of such items: every distinct value, newest last, up to `maxItems` (the newest kept);
 * - JSON key cues: in tool-call arguments and tool results, a value under a key named like the
 *   field (or, for an array, its singular, or a key of `x-ctxkit-keys`) is taken when the field
 *   accepts it; a tool result's top-level value counts as under its function's name;
 * - objects and arrays of objects: a JSON object under such a key, projected onto the schema's
 *   properties (nested objects and arrays too); array items with the same `required` values are
 *   one item, updated in place.
 * A scalar field takes the newest mention the user or the agent's calls make ("actually make it
 * economy" replaces "business"; a mention negated in its clause, "not business", does not count);
 * a value read from a tool result fills a scalar field only while nothing else set it (the first
 * one looked up fills it). A free-text value that two scalar fields would both accept is ambiguous
 * and fills neither (key cues still apply). Free-text fields and booleans are left untouched. Several
 * new messages are read point by point (each user message or tool result with the agent's messages
 * before it), so a history read all at once gives the state reading it call by call gives. Same
 * input, same state: same result.
 */
export class OfflineExtractor implements StateExtractor {
  readonly kind = 'offline' as const;
  readonly name = OFFLINE_EXTRACTOR_NAME;
  readonly offline = true;
  /** Tool results are read as they arrive (no model call to save). */
  readonly trigger = 'user-messages-and-tool-results' as const;
  private readonly recognizers: FieldRecognizer[];
  private readonly shapeSources: ReadonlyArray<ExtractionSource['kind']>;
  /** The JSON keys any field is read under: a JSON text without them is not parsed. */
  private readonly fieldKeys: JsonKeyScreen;
  /** Fields holding one scalar value (a free-text value two of them accept is ambiguous). */
  private readonly scalarFields: ReadonlySet<string>;

  constructor(schema: CompiledStateSchema, options: OfflineExtractorOptions = {}) {
    this.recognizers = schema.fields
      .map((field) => fieldRecognizer(field, schema.schema))
      .filter((r): r is FieldRecognizer => r !== null);
    this.shapeSources = options.shapeSources ?? ['user'];
    this.fieldKeys = new JsonKeyScreen(this.recognizers.flatMap((recognizer) => recognizer.keys));
    this.scalarFields = new Set(this.recognizers.filter((r) => r.kind === 'scalar' && !r.isArray).map((r) => r.field));
  }

  /** Fields this extractor can fill for the schema it was built with. */
  recognisedFields(): string[] {
    return this.recognizers.map((r) => r.field);
  }

  async extract(request: ExtractionRequest): Promise<ExtractionOutcome> {
    const { schema } = request;
    const sources = [...request.input.context, ...request.input.userMessages].sort((a, b) => a.index - b.index);
    const verdicts = new SchemaVerdicts(schema);
    // Read point by point (each user message or tool result, with the agent's messages before it), the
    // state of each point going into the next, as a strategy reading the history call by call does:
    // the state does not depend on how the history was split into calls.
    let state: Readonly<EntityState> = request.state;
    const changed = new Set<string>();
    for (let start = 0; start < sources.length;) {
      let end = start;
      while (end < sources.length - 1 && !endsReadPoint(sources[end]!)) end++;
      const update = this.readPoint(schema, verdicts, state, sources.slice(start, end + 1), request.now);
      start = end + 1;
      if (update === null) continue;
      state = { ...state, ...update };
      for (const field of Object.keys(update)) changed.add(field);
    }
    if (changed.size === 0)
      return { ok: true, state: structuredClone(request.state) as EntityState, diff: [], attempts: 1 };
    const merged = mergeState(
      schema,
      request.state,
      Object.fromEntries([...changed].map((field) => [field, state[field]])),
    );
    return merged.ok
      ? { ok: true, state: merged.state, diff: merged.diff, attempts: 1 }
      : { ok: false, reason: 'invalid-answer', errors: merged.errors, attempts: 1 };
  }

  /** The fields the sources of one read point change in `state`, with their new values (`null`: none). */
  private readPoint(
    schema: CompiledStateSchema,
    verdicts: SchemaVerdicts,
    state: Readonly<EntityState>,
    sources: readonly ExtractionSource[],
    now: number | undefined,
  ): EntityState | null {
    // The reference year reads every text of the point: only a date written without a year needs it.
    let year: number | null | undefined;
    const yearOfUndatedMentions = (): number | null =>
      year === undefined
        ? (year = referenceYear(
            sources.map((source) => source.text),
            JSON.stringify(state),
            now,
          ))
        : year;
    const candidates: Candidate[] = [];
    for (const source of sources) {
      candidates.push(...this.keyedCandidates(schema, verdicts, source));
      if (this.shapeSources.includes(source.kind))
        candidates.push(...this.textCandidates(verdicts, source, yearOfUndatedMentions));
    }
    return candidates.length === 0 ? null : this.proposeUpdate(schema, verdicts, state, candidates);
  }

  /** Values under JSON keys named like a field, in a source that is JSON (tool-call arguments, tool results). */
  private keyedCandidates(
    schema: CompiledStateSchema,
    verdicts: SchemaVerdicts,
    source: ExtractionSource,
  ): Candidate[] {
    const found: Candidate[] = [];
    const lookedUp = source.kind === 'tool-output';
    const rootKey = lookedUp ? (source.toolName ?? null) : null;
    for (const node of jsonKeyedNodes(source.text, rootKey, this.fieldKeys)) {
      for (const recognizer of this.recognizers) {
        if (!recognizer.keys.includes(node.key)) continue;
        const values =
          recognizer.kind === 'object'
            ? this.acceptObject(schema, recognizer, node.value)
            : typeof node.value === 'string' || typeof node.value === 'number'
              ? [acceptScalar(verdicts, recognizer, node.value)]
              : [];
        for (const value of values) {
          if (value !== undefined)
            found.push({
              field: recognizer.field,
              value,
              index: source.index,
              position: node.position,
              cued: true,
              lookedUp,
            });
        }
      }
    }
    return found;
  }

  /** Enum mentions, recognisable tokens and dates in words in a source's free text. */
  private textCandidates(
    verdicts: SchemaVerdicts,
    source: ExtractionSource,
    yearOfUndatedMentions: () => number | null,
  ): Candidate[] {
    const found: Candidate[] = [];
    let tokens: TextCandidate[] | undefined;
    const lookedUp = source.kind === 'tool-output';
    const push = (recognizer: ScalarFieldRecognizer, value: string | number | undefined, position: number) => {
      if (value === undefined) return;
      if (!recognizer.isArray && isNegatedMention(source.text, position)) return;
      found.push({ field: recognizer.field, value, index: source.index, position, cued: false, lookedUp });
    };
    for (const recognizer of this.recognizers) {
      if (recognizer.kind !== 'scalar' || !recognizer.readsText) continue;
      if (recognizer.enumValues) {
        for (const mention of enumMentions(source.text, recognizer.enumValues)) {
          const original = recognizer.enumValues.find((value) => String(value) === mention.value)!;
          push(recognizer, acceptScalar(verdicts, recognizer, original), mention.position);
        }
        continue;
      }
      if (tokensMayMatch(recognizer, source.text)) {
        tokens ??= textTokens(source.text);
        for (const token of tokens) push(recognizer, acceptScalar(verdicts, recognizer, token.value), token.position);
      }
      if (!recognizer.isDate) continue;
      for (const date of datesInWords(source.text)) {
        const chosenYear = date.year ?? yearOfUndatedMentions();
        const iso = chosenYear === null ? null : isoDate(chosenYear, date.month, date.day);
        if (iso !== null) push(recognizer, acceptScalar(verdicts, recognizer, iso), date.position);
      }
    }
    return found;
  }

  /**
   * The objects (items, for an array field) a JSON value gives the field, projected onto its schema
   * and valid. For an array field, a JSON object that is not item-shaped but holds objects (a map
   * such as `{"credit_card_1": {...}}`) gives its values.
   */
  private acceptObject(schema: CompiledStateSchema, recognizer: ObjectFieldRecognizer, raw: unknown): unknown[] {
    if (!isPlainObject(raw)) return [];
    const root = schema.schema;
    const valid = (value: unknown) =>
      value !== undefined && schema.acceptsValue(recognizer.field, recognizer.isArray ? [value] : value);
    const direct = projectOnSchema(raw, recognizer.schema, root);
    if (valid(direct)) return [direct];
    if (!recognizer.isArray || direct !== undefined) return [];
    return Object.values(raw)
      .filter(isPlainObject)
      .map((item) => projectOnSchema(item, recognizer.schema, root))
      .filter(valid);
  }

  private proposeUpdate(
    schema: CompiledStateSchema,
    verdicts: SchemaVerdicts,
    state: Readonly<EntityState>,
    candidates: Candidate[],
  ): EntityState | null {
    const scalarFields = this.scalarFields;
    const scalarClaims = new Map<string, Set<string>>();
    const claimKey = (candidate: Candidate) => `${candidate.index}:${candidate.position}:${String(candidate.value)}`;
    for (const candidate of candidates) {
      if (candidate.cued || !scalarFields.has(candidate.field)) continue;
      const claims = scalarClaims.get(claimKey(candidate)) ?? new Set<string>();
      claims.add(candidate.field);
      scalarClaims.set(claimKey(candidate), claims);
    }
    const usable = candidates.filter(
      (candidate) =>
        candidate.cued || !scalarFields.has(candidate.field) || (scalarClaims.get(claimKey(candidate))?.size ?? 0) <= 1,
    );
    usable.sort((a, b) => a.index - b.index || a.position - b.position);
    const update: EntityState = {};
    let changed = false;
    for (const recognizer of this.recognizers) {
      const mine = usable.filter((candidate) => candidate.field === recognizer.field);
      if (mine.length === 0) continue;
      const current = state[recognizer.field];
      let proposed: unknown;
      if (recognizer.isArray) {
        const identityKeys = recognizer.kind === 'object' ? recognizer.identityKeys : [];
        proposed = mergeArrayItems(
          Array.isArray(current) ? current : [],
          mine.map((candidate) => candidate.value),
          identityKeys,
          recognizer.maxItems,
        );
      } else if (recognizer.kind === 'object') {
        proposed = mine[mine.length - 1]!.value;
      } else {
        // What the user or the agent's calls say wins; a looked-up value only fills an empty field, so
        // the first one looked up fills it and later ones leave it (a reservation's own origin, not
        // that of its last flight).
        const said = mine.filter((candidate) => !candidate.lookedUp);
        if (said.length > 0) proposed = said[said.length - 1]!.value;
        else if (current === undefined) proposed = mine[0]!.value;
        else continue;
      }
      if (canonicalJson(proposed) === canonicalJson(current)) continue;
      // A scalar's verdict is kept for the whole extraction: its value may come up at many read points.
      const accepted =
        recognizer.kind === 'scalar' &&
        !recognizer.isArray &&
        (typeof proposed === 'string' || typeof proposed === 'number')
          ? verdicts.accepts(recognizer, proposed)
          : schema.acceptsValue(recognizer.field, proposed);
      if (!accepted) continue;
      update[recognizer.field] = proposed;
      changed = true;
    }
    return changed ? update : null;
  }
}
