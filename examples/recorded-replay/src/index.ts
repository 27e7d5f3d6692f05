/**
 * Replay helpers shared by the examples: the airline domain's tool definitions, tools answering with
 * a recorded conversation's outputs (by tool name or by call id), a scripted model answering with its
 * recorded assistant messages, loading one bundled record by id, the two replays every framework
 * adapter example runs and the checks of each request they report, and the reply of a stand-in
 * summary model. Example code, not a published package.
 */
export type { ReplayScenario } from './adapter-scenarios';
export { AIRLINE_SCENARIO, CODING_SCENARIO } from './adapter-scenarios';
export { AIRLINE_TOOL_DEFINITIONS } from './airline-tools';
export { loadRecordedConversation } from './load-recorded-conversation';
export type { ToolReplayLog } from './recorded-call-outputs';
export { recordedCallAnswerer, recordedOutputsByCall, UNRECORDED_OUTPUT } from './recorded-call-outputs';
export type { RecordedTurn } from './recorded-conversation';
export { createRecordedTools, recordedOutputs, recordedTurns, ReplayModel } from './recorded-conversation';
export type { ReplayedCallReport } from './replayed-call-report';
export { checkReplayedRequest } from './replayed-call-report';
export { transcriptSummaryReply } from './transcript-summary';
