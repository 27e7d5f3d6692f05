/**
 * @ctxkit/cli: the `ctxkit` command, and its parts for programmatic use (the comparison lab,
 * the context panel, the HTML report).
 */
export type { CliOutput } from './cli-output';
export { createOutput } from './cli-output';
export type { CompareOptions, ComparisonResult } from './commands/compare-command';
export { compareCommand, runComparison } from './commands/compare-command';
export type { NewStrategyOptions } from './commands/new-strategy-command';
export { newStrategyCommand, scaffoldStrategy } from './commands/new-strategy-command';
export type { QualityCommandOptions } from './commands/quality-command';
export { qualityCommand } from './commands/quality-command';
export type { RecommendWindowOptions } from './commands/recommend-window-command';
export { recommendWindowCommand } from './commands/recommend-window-command';
export type { SimulateOptions } from './commands/simulate-command';
export { simulateCommand } from './commands/simulate-command';
export type { FileVerdict, ValidateOptions } from './commands/validate-command';
export { validateCommand, validateFiles } from './commands/validate-command';
export type { CallObservation } from './lab/call-observation';
export type { MessageShape } from './lab/message-shape';
export type { ReadTranscriptOptions, SkippedRecord } from './lab/read-transcript';
export { readTranscript } from './lab/read-transcript';
export type { ReplayOptions } from './lab/replay-conversation';
export { replayConversation } from './lab/replay-conversation';
export type { RejectionReason, StrategySummary } from './lab/strategy-summary';
export { summarizeObservations } from './lab/strategy-summary';
export type { TranscriptFact, TranscriptRecord } from './lab/transcript-record';
export type { PanelInput, PanelOptions } from './panel/context-panel';
export { renderContextPanel } from './panel/context-panel';
export type { NeededFact } from './quality/needed-fact';
export { neededFacts } from './quality/needed-facts';
export type { QualityRow } from './quality/quality-row';
export type { QualityOptions, QualityResult } from './quality/run-quality';
export { runQuality } from './quality/run-quality';
export type { ComparisonTableOptions } from './report/comparison-table';
export { renderComparisonTable } from './report/comparison-table';
export type { ReportContext } from './report/html-report';
export { renderHtmlReport } from './report/html-report';
export { buildProgram, runCli } from './run-cli';
export type {
  ContextWindowPreset,
  ContextWindowRecommendation,
  ContextWindowRequest,
  ModelQuantization,
} from './window/recommend-context-window';
export {
  estimateKvCacheBytes,
  estimateModelBytes,
  recommendContextWindow,
  STANDARD_CONTEXT_WINDOWS,
} from './window/recommend-context-window';
