// Shared jest settings for every workspace project: ts-jest (TypeScript's own emitter keeps
// decorator metadata), node environment, and @ctxkit/* mapped to sources so tests need no build.
const path = require('node:path');

const root = __dirname;

const moduleNameMapper = {
  '^@ctxkit/core/testing/generators$': path.join(root, 'packages/core/src/testing/generators/index.ts'),
  '^@ctxkit/core/testing$': path.join(root, 'packages/core/src/testing/index.ts'),
  '^@ctxkit/core/strategy-kit$': path.join(root, 'packages/core/src/strategy-kit/index.ts'),
  '^@ctxkit/core$': path.join(root, 'packages/core/src/index.ts'),
  '^@ctxkit/kernel$': path.join(root, 'packages/kernel/src/index.ts'),
  '^@ctxkit/cli$': path.join(root, 'packages/cli/src/index.ts'),
  '^@ctxkit/store-redis$': path.join(root, 'packages/store-redis/src/index.ts'),
  '^@ctxkit/store-postgres$': path.join(root, 'packages/store-postgres/src/index.ts'),
  '^@ctxkit/ai-sdk$': path.join(root, 'packages/ai-sdk/src/index.ts'),
  '^@ctxkit/langchain$': path.join(root, 'packages/langchain/src/index.ts'),
  '^@ctxkit/openai-agents$': path.join(root, 'packages/openai-agents/src/index.ts'),
  '^@ctxkit/strategy-([a-z-]+)$': path.join(root, 'plugins/$1/src/index.ts'),
  '^@ctxkit/example-recorded-replay$': path.join(root, 'examples/recorded-replay/src/index.ts'),
};

function project(dir) {
  return {
    displayName: path.relative(root, dir),
    rootDir: dir,
    testEnvironment: 'node',
    testMatch: ['<rootDir>/src/**/*.test.ts', '<rootDir>/test/**/*.test.ts'],
    testPathIgnorePatterns: ['/node_modules/', '/dist/'],
    transform: {
      '^.+\\.ts$': ['ts-jest', { tsconfig: path.join(root, 'tsconfig.jest.json') }],
    },
    moduleNameMapper,
  };
}

module.exports = { project, moduleNameMapper };
