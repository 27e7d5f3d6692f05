/**
 * Node's own `require`, set by the test environment `native-require.test.env.ts` for tests that
 * run the AI SDK (ES modules only).
 */
declare var nativeRequire: NodeJS.Require;
