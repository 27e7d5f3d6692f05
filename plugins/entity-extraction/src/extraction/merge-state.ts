import type { CompiledStateSchema } from '../schema/state-schema';
import type { EntityFieldChange, EntityState } from '../state/entity-state';

/** Outcome of merging an extraction answer into the state. */
export type MergeResult = { ok: true; state: EntityState; diff: EntityFieldChange[] } | { ok: false; errors: string[] };

/** JSON text with object keys sorted, so that equal values compare equal whatever their key order. */
export function canonicalJson(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.keys(value as Record<string, unknown>)
    .sort()
    .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
    .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
  return `{${entries.join(',')}}`;
}

/**
 * Merges an answer (the fields the extraction set or changed) into the current state, per top-level
 * field: a field absent from the answer keeps its value; a field present replaces it; an explicit
 * `null` clears it where the schema accepts `null` for that field, and is a validation error where
 * it does not. The *merged* state is validated (top-level `required` aside), so an answer valid on
 * its own can still be refused. Neither input is modified.
 */
export function mergeState(schema: CompiledStateSchema, current: Readonly<EntityState>, answer: unknown): MergeResult {
  if (answer === null || typeof answer !== 'object' || Array.isArray(answer)) {
    return { ok: false, errors: ['/: the answer must be a JSON object of state fields'] };
  }
  const merged: EntityState = structuredClone(current) as EntityState;
  const updates = answer as Record<string, unknown>;
  for (const [field, value] of Object.entries(updates)) {
    if (value === undefined) continue;
    merged[field] = structuredClone(value);
  }
  const errors = schema.validate(merged);
  if (errors.length > 0) return { ok: false, errors };
  const diff: EntityFieldChange[] = [];
  for (const [field, value] of Object.entries(updates)) {
    if (value === undefined) continue;
    if (value === null) delete merged[field];
    const before = current[field];
    const after = merged[field];
    if (canonicalJson(before) !== canonicalJson(after)) {
      diff.push({
        field,
        before: before === undefined ? null : structuredClone(before),
        after: after === undefined ? null : structuredClone(after),
      });
    }
  }
  return { ok: true, state: merged, diff };
}
