import * as fs from 'node:fs';
import * as path from 'node:path';

let cached: string | undefined;

/**
 * The Chart.js UMD bundle's source, inlined into reports so they open without network.
 * Read from the installed `chart.js` package (its `exports` do not expose the UMD file, so it is
 * located next to the package's main entry).
 */
export function chartLibrarySource(): string {
  if (cached === undefined) {
    const main = require.resolve('chart.js');
    const dist = path.dirname(main);
    cached = fs.readFileSync(path.join(dist, 'chart.umd.min.js'), 'utf8');
  }
  return cached;
}
