import { CtxkitError } from './ctxkit-error';
import { ErrorCodes } from './error-codes';

/** A plugin ships a `configSchema` (or an agent a state schema) that is not valid JSON Schema. */
export class ConfigSchemaError extends CtxkitError {
  constructor(owner: string, file: string, problem: string) {
    super({
      code: ErrorCodes.CONFIG_SCHEMA_INVALID,
      category: 'plugin',
      message: `${owner}: the JSON Schema in ${file} is invalid: ${problem}.`,
      fix: 'Fix the schema so that it compiles as JSON Schema draft-07 or 2020-12.',
      details: { owner, file, problem },
    });
  }
}
