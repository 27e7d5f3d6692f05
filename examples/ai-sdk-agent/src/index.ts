/**
 * The AI SDK example: recorded tau-bench and OpenHands conversations replayed through
 * `generateText` with a ctxkit strategy. Example code, not a published package.
 */
export type { ModelSummariesResult, ScenarioOptions, ScenarioResult } from './main';
export {
  OPENHANDS_RECORD_ID,
  runAiSdkAgent,
  runOpenHands,
  runTauBench,
  runTauBenchWithModelSummaries,
  TAU_BENCH_RECORD_ID,
} from './main';
export { recordedAiTools } from './recorded-ai-tools';
export type { Expansion, ModelAnswer, ModelRequest } from './recorded-replay-model';
export { EXPAND_PAGE_LINES, RecordedReplayModel, TRIMMED_PLACEHOLDER } from './recorded-replay-model';
export type { ReplayOptions, ReplayReport } from './replay-conversation';
export { replayConversation } from './replay-conversation';
export type { SummaryRequest } from './summary-writer-model';
export { SummaryWriterModel } from './summary-writer-model';
