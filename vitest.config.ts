import { defineConfig } from 'vitest/config';
import swc from 'unplugin-swc';
import path from 'node:path';

export default defineConfig({
  plugins: [swc.vite({ jsc: { transform: { legacyDecorator: true, decoratorMetadata: true } } })],
  resolve: {
    alias: [
      { find: /^@ledgerline\/(domain|store|auth|wire|canton|daml-lf|testing)$/, replacement: path.resolve(__dirname, 'libs/$1/src/index.ts') },
      { find: /^@ledgerline\/(domain|store|auth|wire|canton|daml-lf|testing)\/(.*)$/, replacement: path.resolve(__dirname, 'libs/$1/src/$2') },
      // The server's own modules, for the tests that exercise them below the HTTP surface (no public entry: an app).
      { find: /^@ledgerline\/server\/(.*)$/, replacement: path.resolve(__dirname, 'apps/server/src/$1') },
    ],
  },
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 120_000,
    reporters: ['default'],
  },
});
