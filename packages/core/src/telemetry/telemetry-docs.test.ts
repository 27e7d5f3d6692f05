import * as fs from 'node:fs';
import * as path from 'node:path';

import { LIFECYCLE_EVENTS, LIFECYCLE_SPAN } from './span-events';
import { CtxkitMetricNames, CtxkitMetricUnits, CtxkitSpanEventNames, CtxkitSpanNames } from './telemetry-names';

/** docs/15-observability.md lists every span, span event and metric ctxkit emits, each metric with its unit. */
const page = fs.readFileSync(path.join(__dirname, '..', '..', '..', '..', 'docs', '15-observability.md'), 'utf8');
const rows = page.split('\n').filter((line) => line.startsWith('| `'));

describe('docs/15-observability.md', () => {
  it.each(Object.values(CtxkitSpanNames))('lists the span %s in a table', (name) => {
    expect(rows.some((row) => row.includes(`\`${name}\``))).toBe(true);
  });

  it.each(Object.values(CtxkitSpanEventNames))('lists the span event %s in a table', (name) => {
    expect(rows.some((row) => row.startsWith(`| \`${name}\` |`))).toBe(true);
  });

  it.each(Object.keys(CtxkitMetricNames) as Array<keyof typeof CtxkitMetricNames>)(
    'lists the metric %s with its unit',
    (key) => {
      // A metric's row names its instrument (some metrics share their name with a span attribute).
      const row = rows.find(
        (candidate) =>
          candidate.startsWith(`| \`${CtxkitMetricNames[key]}\` | counter |`) ||
          candidate.startsWith(`| \`${CtxkitMetricNames[key]}\` | histogram |`),
      );
      expect(row?.split('|').map((cell) => cell.trim())[3]).toBe(`\`${CtxkitMetricUnits[key]}\``);
    },
  );

  it.each([...LIFECYCLE_EVENTS])('names the span of %s outside a compose', (event) => {
    expect(rows.some((row) => row.includes(`\`${LIFECYCLE_SPAN[event]}\``) && row.includes(`\`${event}\``))).toBe(true);
  });
});
