import Ajv, { type ErrorObject, type Options } from 'ajv';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

/**
 * How this plugin compiles agent-authored state schemas (its config schema goes through core's
 * `applyConfigSchema`, like every plugin's). `allErrors` so that every problem is reported at once;
 * formats from ajv-formats (`date`, `date-time`, `email`, `time` ...); `strict: false` so that
 * annotations such as `examples` or vendor keywords are allowed. No `useDefaults`: validating an
 * extracted state never changes it.
 */
export interface PluginAjvOptions {
  /** Which JSON Schema draft: 2020-12 when the schema's `$schema` names it, else draft-07. */
  draft: 'draft-07' | '2020-12';
}

/**
 * Creates an ajv instance for one schema family.
 * @see docs/strategies/entity-extraction.md
 */
export function createPluginAjv(options: PluginAjvOptions): Ajv {
  const ajvOptions: Options = {
    allErrors: true,
    strict: false,
    useDefaults: false,
    validateSchema: true,
  };
  const ajv = options.draft === '2020-12' ? new Ajv2020(ajvOptions) : new Ajv(ajvOptions);
  addFormats(ajv);
  return ajv;
}

/** The draft a schema declares through `$schema` (draft-07 when absent or unknown). */
export function schemaDraft(schema: Readonly<Record<string, unknown>>): PluginAjvOptions['draft'] {
  const declared = typeof schema['$schema'] === 'string' ? schema['$schema'] : '';
  return declared.includes('2020-12') ? '2020-12' : 'draft-07';
}

/** Formats ajv errors as `"/pointer: message"` lines, the form used in events and retry prompts. */
export function formatAjvErrors(errors: readonly ErrorObject[] | null | undefined): string[] {
  if (!errors) return [];
  return errors.map((error) => {
    const pointer = error.instancePath || '/';
    const extra =
      error.keyword === 'additionalProperties'
        ? ` (${String((error.params as { additionalProperty?: unknown }).additionalProperty)})`
        : error.keyword === 'enum'
          ? ` (${JSON.stringify((error.params as { allowedValues?: unknown }).allowedValues)})`
          : '';
    return `${pointer}: ${error.message ?? error.keyword}${extra}`;
  });
}
