import type { ErrorObject } from 'ajv';

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
