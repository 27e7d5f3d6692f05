import type { CompiledStateSchema } from '../schema/state-schema';
import type { ScalarFieldRecognizer } from './field-recognizer';

/**
 * The state schema's verdicts on the scalar values one extraction tests, each value validated once
 * per field: words, ids and dates repeat across the messages an extraction reads, and every verdict
 * runs the schema's validator. A verdict depends on the field and the value only.
 */
export class SchemaVerdicts {
  private readonly verdicts = new Map<ScalarFieldRecognizer, Map<string | number, boolean>>();

  constructor(private readonly schema: CompiledStateSchema) {}

  /** True when the schema accepts `value` for the recognizer's field (as an item, for an array field). */
  accepts(recognizer: ScalarFieldRecognizer, value: string | number): boolean {
    let verdicts = this.verdicts.get(recognizer);
    if (!verdicts) {
      verdicts = new Map();
      this.verdicts.set(recognizer, verdicts);
    }
    let verdict = verdicts.get(value);
    if (verdict === undefined) {
      verdict = this.schema.acceptsValue(recognizer.field, recognizer.isArray ? [value] : value);
      verdicts.set(value, verdict);
    }
    return verdict;
  }
}
