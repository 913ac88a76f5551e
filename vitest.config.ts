import { defineConfig } from 'vitest/config';
import type { TestProjectConfiguration } from 'vitest/config';
import swc from 'unplugin-swc';
import path from 'node:path';

const plugins = [swc.vite({ jsc: { transform: { legacyDecorator: true, decoratorMetadata: true } } })];
const resolve = {
  alias: [
    {
      find: /^@ledgerline\/(domain|store|auth|wire|canton|daml-lf|testing|grpc)$/,
      replacement: path.resolve(__dirname, 'libs/$1/src/index.ts'),
    },
    {
      find: /^@ledgerline\/(domain|store|auth|wire|canton|daml-lf|testing|grpc)\/(.*)$/,
      replacement: path.resolve(__dirname, 'libs/$1/src/$2'),
    },
    // The server's own modules, for the tests that exercise them below the HTTP surface (no public entry: an app).
    { find: /^@ledgerline\/server\/(.*)$/, replacement: path.resolve(__dirname, 'apps/server/src/$1') },
  ],
};

/**
 * One project per test tier (`vitest run --project unit`). The projects do not extend the root configuration: its
 * globalSetup (the template database) then runs once per run, for the root project, and every project reads what it
 * provides (vitest 3.2 merges the root project's provided context into each project's). The tiers that run the built
 * server rebuild dist/ in their own global setup, which Vitest runs only when the run has files of that tier: the unit
 * and integration tiers run from the sources and never wait for a build.
 */
const RUNS_THE_BUILD = ['e2e', 'conformance', 'hardening'];

function tier(name: string): TestProjectConfiguration {
  return {
    plugins,
    resolve,
    test: {
      name,
      root: __dirname,
      include: [`test/${name}/**/*.test.ts`],
      globalSetup: RUNS_THE_BUILD.includes(name) ? ['test/support/build-setup.ts'] : [],
      pool: 'forks',
      testTimeout: 60_000,
      hookTimeout: 120_000,
    },
  };
}

export default defineConfig({
  plugins,
  resolve,
  test: {
    globalSetup: ['test/support/global-setup.ts'],
    reporters: ['default'],
    projects: ['unit', 'integration', 'e2e', 'conformance', 'hardening'].map(tier),
  },
});
