/** The benchmarks' coding-agent histories: core's seeded generator, which the layout golden test replays too. */
export { generateCodingHistory as generateHistory } from '@ctxkit/core/testing/generators';
