/**
 * @ctxkit/cli: the `ctxkit` command, and its parts for programmatic use (the comparison lab,
 * the context panel, the HTML report).
 */
export { buildProgram, runCli } from './run-cli';
export type { CliOutput } from './cli-output';
export { createOutput } from './cli-output';
export { compareCommand, runComparison } from './commands/compare-command';
export type { CompareOptions, ComparisonResult } from './commands/compare-command';
export { qualityCommand } from './commands/quality-command';
export type { QualityCommandOptions } from './commands/quality-command';
export { runQuality } from './quality/run-quality';
export type { QualityOptions, QualityResult } from './quality/run-quality';
export type { QualityRow } from './quality/quality-row';
export { neededFacts } from './quality/needed-facts';
export type { NeededFact } from './quality/needed-fact';
export { newStrategyCommand, scaffoldStrategy } from './commands/new-strategy-command';
export type { NewStrategyOptions } from './commands/new-strategy-command';
export { recommendWindowCommand } from './commands/recommend-window-command';
export type { ContextWindowPreset, ContextWindowRecommendation, ContextWindowRequest, ModelQuantization } from './window/recommend-context-window';
export { estimateKvCacheBytes, estimateModelBytes, recommendContextWindow, STANDARD_CONTEXT_WINDOWS } from './window/recommend-context-window';
export type { RecommendWindowOptions } from './commands/recommend-window-command';
export { simulateCommand } from './commands/simulate-command';
export type { SimulateOptions } from './commands/simulate-command';
export { validateCommand, validateFiles } from './commands/validate-command';
export type { FileVerdict, ValidateOptions } from './commands/validate-command';
export { readTranscript } from './lab/read-transcript';
export type { ReadTranscriptOptions, SkippedRecord } from './lab/read-transcript';
export type { MessageShape } from './lab/message-shape';
export type { TranscriptFact, TranscriptRecord } from './lab/transcript-record';
export { replayConversation } from './lab/replay-conversation';
export type { ReplayOptions } from './lab/replay-conversation';
export type { CallObservation } from './lab/call-observation';
export { summarizeObservations } from './lab/strategy-summary';
export type { RejectionReason, StrategySummary } from './lab/strategy-summary';
export { renderContextPanel } from './panel/context-panel';
export type { PanelInput, PanelOptions } from './panel/context-panel';
export { renderComparisonTable } from './report/comparison-table';
export type { ComparisonTableOptions } from './report/comparison-table';
export { renderHtmlReport } from './report/html-report';
export type { ReportContext } from './report/html-report';
