import path from 'node:path';
import { ensureFreshBuild } from './fresh-build';

/**
 * Global setup of the tiers that run the built server or its built files (e2e, conformance, hardening): brings dist/ up
 * to date once per run, before any of their files starts, so parallel files never build or run a half-written dist/.
 * Vitest runs a project's global setup only when the run has files of that project, so the unit and integration tiers,
 * which run from the sources, never wait for a build.
 */
export default async function setup(): Promise<void> {
  await ensureFreshBuild(path.resolve(__dirname, '../..'));
}
