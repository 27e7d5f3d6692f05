/**
 * The mark of an AI SDK schema (`jsonSchema()` sets it; the AI SDK sends a marked schema's JSON
 * Schema as it is). A registered symbol, the same in every copy of the AI SDK.
 */
export const AI_SDK_SCHEMA_MARKER = Symbol.for('vercel.ai.schema');
