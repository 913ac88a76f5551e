import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { transformFileSync } from '@swc/core';
import { ed25519WorkerScript } from '@ledgerline/canton';

const SOURCE = path.resolve(__dirname, '../../libs/canton/src/ed25519-worker.thread.ts');

/**
 * The Ed25519 worker script for tests. Run from dist/, the compiled one beside the library. Run from the TypeScript
 * sources (vitest), there is none, and a worker thread cannot run TypeScript on Node 20: the thread's current source is
 * compiled with SWC (the build's compiler, scripts/build.js) into the temporary folder, named by its content. So tests
 * exercise the worker as it is in the working tree, never a stale dist/.
 */
export function ed25519WorkerScriptForTests(): string {
  const built = ed25519WorkerScript();
  if (fs.existsSync(built)) return built;
  const { code } = transformFileSync(SOURCE, {
    module: { type: 'commonjs', strictMode: true },
    jsc: { target: 'es2022', parser: { syntax: 'typescript' } },
  });
  const file = path.join(
    os.tmpdir(),
    `ledgerline-ed25519-worker-${createHash('sha256').update(code).digest('hex').slice(0, 16)}.js`,
  );
  if (!fs.existsSync(file)) {
    const partial = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(partial, code);
    fs.renameSync(partial, file);
  }
  return file;
}
