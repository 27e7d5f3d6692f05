'use strict';
// The store module of redis-recall.processes.test.ts: each worker process of runRecallProcessesScenario
// (@ctxkit/core/testing) builds its RedisContextStore here, from the built package (npx tsc -b first).
const { RedisContextStore } = require('../../dist/index.js');

exports.createStore = (options) => new RedisContextStore(options);
