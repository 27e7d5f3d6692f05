import * as path from 'node:path';

import { bundledConversationsDir } from '../lab/bundled-transcripts';
import { LOCOMO_PATH_VARIABLE, locomoFile } from './locomo-file';
import type { QualityDataset } from './quality-dataset';
import { variant } from './strategy-variant';

export const SLIDING_WINDOW_ID = 'std-sliding-window-strategy';
export const SUMMARIZATION_ID = 'std-summarization-strategy';
export const ENTITY_EXTRACTION_ID = 'std-entity-extraction-strategy';
export const TOOL_OUTPUT_CACHE_ID = 'std-tool-output-cache-strategy';
export const RECALL_ID = 'std-recall-strategy';

/** The row label of the sliding window, the baseline every ratio is taken against. */
export const BASELINE_LABEL = 'sliding window';

/**
 * The harness's data sets: tau-bench airline and OpenHands (bundled, MIT) and LoCoMo (read from
 * beside the repository when present). `airlineSchema` is the entity-extraction state schema for
 * the airline conversations.
 */
export function qualityDatasets(airlineSchema: Readonly<Record<string, unknown>>): QualityDataset[] {
  const bundled = bundledConversationsDir();
  const locomo = locomoFile();
  const slidingWindow = variant(BASELINE_LABEL, SLIDING_WINDOW_ID);
  const summarization = variant('summarization', SUMMARIZATION_ID);
  const toolOutputCache = variant('tool-output cache', TOOL_OUTPUT_CACHE_ID);
  const recall = variant('recall', RECALL_ID);
  const summarizationRecall = variant('summarization + recall', SUMMARIZATION_ID, { recall: {} });
  return [
    {
      name: 'tau-bench',
      file: path.join(bundled, 'tau-bench-airline.jsonl'),
      ceilings: [2000, 4000, 8000],
      variants: [
        slidingWindow,
        summarization,
        variant('entity extraction', ENTITY_EXTRACTION_ID, { stateSchema: airlineSchema }),
        variant('entity extraction (lean)', ENTITY_EXTRACTION_ID, { stateSchema: airlineSchema, lean: true }),
        toolOutputCache,
        recall,
        summarizationRecall,
        variant('entity extraction + recall', ENTITY_EXTRACTION_ID, { stateSchema: airlineSchema, recall: {} }),
      ],
      finalCompose: false,
      notes: [],
    },
    {
      name: 'locomo',
      file: locomo.exists ? locomo.file : undefined,
      skipped: locomo.exists
        ? undefined
        : `LoCoMo not found at ${locomo.file} (set ${LOCOMO_PATH_VARIABLE}); it is licensed for non-commercial use ` +
          `only and never bundled`,
      ceilings: [2000, 4000, 8000, 16000],
      variants: [
        slidingWindow,
        summarization,
        variant('summarization (threshold 4, batch 2)', SUMMARIZATION_ID, { threshold: 4, batchTurns: 2 }),
        toolOutputCache,
        recall,
        summarizationRecall,
      ],
      finalCompose: true,
      notes: ['entity extraction is not measured on LoCoMo: there is no state schema for open-domain chat'],
    },
    {
      name: 'openhands',
      file: path.join(bundled, 'openhands-multi-swe-bench.jsonl'),
      ceilings: [4000, 8000, 16000],
      variants: [slidingWindow, summarization, toolOutputCache, recall, summarizationRecall],
      finalCompose: false,
      notes: ['entity extraction is not measured on OpenHands: the airline schema does not fit coding runs'],
    },
  ];
}
