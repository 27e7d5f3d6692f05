/**
 * Replay helpers shared by the tau-bench examples (customer support, booking): the airline domain's
 * tool definitions, tools answering with a recorded conversation's outputs, and a scripted model
 * answering with its recorded assistant messages. Example code, not a published package.
 */
export { AIRLINE_TOOL_DEFINITIONS } from './airline-tools';
export { createRecordedTools, recordedOutputs, recordedTurns, ReplayModel } from './recorded-conversation';
export type { RecordedTurn } from './recorded-conversation';
