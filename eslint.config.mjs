// ESLint checks what a formatter cannot: promises left floating, `any` in library code, the order of imports,
// lines over 120 characters (comments and strings included, which Prettier leaves as they are), and a generator
// that never yields.
// Prettier (.prettierrc.json) owns the rest of the layout; `npm run lint` runs both.
import stylistic from '@stylistic/eslint-plugin';
import { defineConfig } from 'eslint/config';
import simpleImportSort from 'eslint-plugin-simple-import-sort';
import tseslint from 'typescript-eslint';

export default defineConfig(
  {
    ignores: [
      '**/node_modules/**',
      '**/dist/**',
      '**/coverage/**',
      'reports/**',
      'bench/results/**',
      '**/fixtures/**',
      '**/.ctxkit/**',
    ],
  },
  {
    files: ['**/*.{ts,tsx,js,mjs,cjs}'],
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    languageOptions: { parser: tseslint.parser },
    plugins: {
      '@stylistic': stylistic,
      '@typescript-eslint': tseslint.plugin,
      'simple-import-sort': simpleImportSort,
    },
    rules: {
      '@stylistic/max-len': ['error', { code: 120, tabWidth: 2 }],
      'require-yield': 'error',
      'simple-import-sort/imports': 'error',
      'simple-import-sort/exports': 'error',
    },
  },
  {
    // Type-aware: every .ts file belongs to its package's tsconfig.json.
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
    },
  },
  {
    // Library code: no `any` in what the packages export or compute with. Tests may reach into untyped values.
    files: ['{packages,plugins}/*/src/**/*.ts'],
    ignores: ['**/*.test.ts', '**/__tests__/**'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
    },
  },
);
