import { createRequire } from 'node:module';

import NodeEnvironment from 'jest-environment-node';

/**
 * jest's node environment plus `nativeRequire`, Node's own `require`. The AI SDK ships ES modules
 * only, which jest's CommonJS loader cannot run on Node < 24.9; Node itself loads them with
 * `require` (Node ≥ 20.19). A test that runs the AI SDK declares this environment and maps the
 * packages to it:
 *
 * ```ts
 * /** @jest-environment <rootDir>/src/testing/native-require.test.env.ts *\/
 * jest.mock('ai', () => nativeRequire('ai'));
 * ```
 */
export default class NativeRequireEnvironment extends NodeEnvironment {
  override async setup(): Promise<void> {
    await super.setup();
    this.global.nativeRequire = createRequire(__filename);
  }
}
