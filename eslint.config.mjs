// ESLint for the whole repository (npm run lint): ESLint's and typescript-eslint's recommended rules.
//
// Not the type-aware rule sets (recommendedTypeChecked): they need the whole TypeScript program, which took this lint
// from ~25 s to over a minute on the 2-core target; npm run typecheck (tsc --strict) already runs on every npm test.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'libs/testing/dist/**', 'coverage/**', '.ledgerline/**', 'libs/grpc/src/gen/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    // A disable comment that no longer suppresses anything is an error: it would hide the next real finding there.
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    // Prettier (npm run format, checked by npm run lint) lays out code at 120 columns; this bounds what it leaves alone:
    // comments and lines it cannot break. Long string and template literals stay whole, so messages can be searched for.
    rules: {
      'max-len': [
        'error',
        { code: 160, ignoreStrings: true, ignoreTemplateLiterals: true, ignoreRegExpLiterals: true, ignoreUrls: true },
      ],
    },
  },
  {
    // Configuration is read once, by apps/server/src/config.ts (ledgerctl hands it its environment); libraries and the
    // rest of the applications get what they need passed in. @ledgerline/testing is a client package run by users' tests:
    // it reads LEDGERLINE_URL and LEDGERLINE_TOKEN itself.
    files: ['apps/**', 'libs/**'],
    ignores: ['apps/server/src/config.ts', 'apps/ledgerctl/src/main.ts', 'libs/testing/src/index.ts'],
    rules: {
      'no-restricted-properties': [
        'error',
        {
          object: 'process',
          property: 'env',
          message: 'Read configuration in apps/server/src/config.ts and pass it in.',
        },
      ],
    },
  },
  {
    // Test code: tests read untyped JSON answers, reach into protobuf oneofs and pass deliberately ill-typed input, so
    // `any` there is the point of the code, not a lapse. apps/ and libs/ keep the rule.
    files: ['test/**', 'bench/**', 'testkit/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // CommonJS scripts and configuration (scripts/build.js, .dependency-cruiser.cjs, the crash-test child).
    files: ['**/*.js', '**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
