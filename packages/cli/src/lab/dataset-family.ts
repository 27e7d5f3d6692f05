import * as path from 'node:path';

/** Transcript families the lab has presets for. */
export type DatasetFamily = 'tau-bench' | 'openhands' | 'default';

/** The family of a transcript file, from its name (`tau-bench-airline.jsonl` → `tau-bench`). */
export function datasetFamily(file: string): DatasetFamily {
  const name = path.basename(file).toLowerCase();
  if (name.startsWith('tau-bench')) return 'tau-bench';
  if (name.startsWith('openhands')) return 'openhands';
  return 'default';
}

/** The dataset's display name: the file name without `.jsonl` or `.json`. */
export function datasetName(file: string): string {
  return path.basename(file).replace(/\.jsonl?$/i, '');
}
