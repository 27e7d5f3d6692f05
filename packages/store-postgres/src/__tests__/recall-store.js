'use strict';
// The store module of postgres-recall.processes.test.ts: each worker process of runRecallProcessesScenario
// (@ctxkit/core/testing) builds its PostgresContextStore here (whose own recall backend keeps the recall
// log), from the built package (npx tsc -b first).
const { PostgresContextStore } = require('../../dist/index.js');

exports.createStore = (options) => new PostgresContextStore(options);
