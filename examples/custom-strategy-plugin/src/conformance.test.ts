import * as path from 'node:path';

import { runConformance } from '@ctxkit/core/testing';

// The shared conformance suite, as every strategy plugin runs it: budget, tool-call pairs, newest
// user message, no mutation, nothing silently lost, determinism, on generated, hostile and real
// conversations. The plugin is loaded as a host loads it: plugin.json read and validated, its entry
// (the build, `npx tsc -b`) imported by the runtime's loader, each case's config validated by its
// configSchema with the defaults applied.
runConformance('example-pinned-messages-strategy', {
  plugin: path.join(__dirname, '..'),
  config: { pinMarkers: ['📌', '[pin]', 'reservation'] },
});
