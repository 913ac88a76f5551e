import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ensureFreshBuild, staleBuild } from '../../support/fresh-build';

/**
 * The rebuild the global setup runs before the end-to-end tests, on a throwaway tree whose scripts/build.js mimics the
 * real one (every .ts under the source folders to dist/<same path>.js) and counts its runs.
 */
const FAKE_BUILD = `
const fs = require('node:fs');
const path = require('node:path');
const root = path.resolve(__dirname, '..');
fs.appendFileSync(path.join(root, 'builds.log'), 'build\\n');
if (fs.existsSync(path.join(root, 'fail-build'))) process.exit(3);
fs.rmSync(path.join(root, 'dist'), { recursive: true, force: true });
function walk(dir) {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)]));
}
for (const top of ['apps', 'libs', 'bench', 'testkit']) {
  for (const file of walk(path.join(root, top)).filter((f) => f.endsWith('.ts'))) {
    const target = path.join(root, 'dist', path.relative(root, file).replace(/\\.ts$/, '.js'));
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, fs.readFileSync(file));
  }
}
`;

let root: string;
const quiet = { log: () => undefined };
const write = (rel: string, text = 'export {};\n') => {
  fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
  fs.writeFileSync(path.join(root, rel), text);
};
const builds = () =>
  fs.existsSync(path.join(root, 'builds.log'))
    ? fs.readFileSync(path.join(root, 'builds.log'), 'utf8').split('\n').filter(Boolean).length
    : 0;
/** Sets a file's modification time `seconds` from now (sub-second clocks make "just written" ambiguous). */
const touch = (rel: string, seconds: number) => {
  const t = new Date(Date.now() + seconds * 1000);
  fs.utimesSync(path.join(root, rel), t, t);
};

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'ledgerline-fresh-build-'));
  write('scripts/build.js', FAKE_BUILD);
  touch('scripts/build.js', -60);
  write('apps/server/src/main.ts');
  write('apps/ledgerctl/src/main.ts');
  write('libs/store/src/index.ts');
  write('bench/lib/index.ts');
  write('testkit/ledger.ts');
  write('testkit/types.d.ts', 'declare const x: number;\n');
});
afterEach(() => {
  fs.rmSync(root, { recursive: true, force: true });
});

describe('staleBuild', () => {
  it('names why dist/ does not match the sources, and is null once it does', async () => {
    expect(staleBuild(root)).toBe('dist/apps/server/src/main.js is missing');
    expect(await ensureFreshBuild(root, quiet)).toBe('built');
    expect(staleBuild(root)).toBeNull();

    touch('libs/store/src/index.ts', 10);
    expect(staleBuild(root)).toBe('libs/store/src/index.ts is newer than its build');
    touch('libs/store/src/index.ts', -10);
    expect(staleBuild(root)).toBeNull();

    write('testkit/new-helper.ts');
    expect(staleBuild(root)).toBe('testkit/new-helper.ts has no build');
    fs.rmSync(path.join(root, 'testkit/new-helper.ts'));
    expect(staleBuild(root)).toBeNull();

    fs.rmSync(path.join(root, 'bench/lib/index.ts'));
    expect(staleBuild(root)).toBe('dist/bench/lib/index.js has no source any more');
    write('bench/lib/index.ts');
    touch('bench/lib/index.ts', -10);
    expect(staleBuild(root)).toBeNull();

    touch('scripts/build.js', 10);
    expect(staleBuild(root)).toBe('scripts/build.js is newer than the build');
  });

  it('holds the explorer (one bundle of apps/explorer) stale when any of its files is newer than the bundle', async () => {
    await ensureFreshBuild(root, quiet);
    write('apps/explorer/src/main.tsx');
    write('apps/explorer/index.html', '<!doctype html>');
    touch('apps/explorer/src/main.tsx', -10);
    touch('apps/explorer/index.html', -10);
    expect(staleBuild(root)).toBe('dist/apps/explorer/assets/explorer.js is missing');
    write('dist/apps/explorer/assets/explorer.js');
    expect(staleBuild(root)).toBeNull();
    touch('apps/explorer/index.html', 10);
    expect(staleBuild(root)).toBe('apps/explorer/index.html is newer than the explorer bundle');
  });

  it('ignores declaration files and what lies outside the compiled folders', async () => {
    await ensureFreshBuild(root, quiet);
    write('migrations/0001.ts');
    touch('testkit/types.d.ts', 10);
    expect(staleBuild(root)).toBeNull();
  });
});

describe('ensureFreshBuild', () => {
  it('builds only when stale', async () => {
    expect(await ensureFreshBuild(root, quiet)).toBe('built');
    expect(await ensureFreshBuild(root, quiet)).toBe('fresh');
    expect(builds()).toBe(1);
    touch('apps/server/src/main.ts', 10);
    expect(await ensureFreshBuild(root, quiet)).toBe('built');
    expect(builds()).toBe(2);
    expect(fs.existsSync(path.join(root, '.build-lock'))).toBe(false);
  });

  it('lets concurrent callers build once: the others wait for the lock and find dist/ current', async () => {
    const outcomes = await Promise.all([
      ensureFreshBuild(root, quiet),
      ensureFreshBuild(root, quiet),
      ensureFreshBuild(root, quiet),
    ]);
    expect(outcomes.sort()).toEqual(['built', 'built-elsewhere', 'built-elsewhere']);
    expect(builds()).toBe(1);
    expect(staleBuild(root)).toBeNull();
  });

  it('takes over a lock whose owner has died', async () => {
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    fs.mkdirSync(path.join(root, '.build-lock'));
    fs.writeFileSync(path.join(root, '.build-lock/pid'), dead.stdout);
    expect(await ensureFreshBuild(root, quiet)).toBe('built');
    expect(builds()).toBe(1);
  });

  it('waits for a live owner and gives up at its bound', async () => {
    fs.mkdirSync(path.join(root, '.build-lock'));
    fs.writeFileSync(path.join(root, '.build-lock/pid'), String(process.pid));
    await expect(ensureFreshBuild(root, { ...quiet, timeoutMs: 300 })).rejects.toThrow(
      /held .*\.build-lock for too long/,
    );
    expect(builds()).toBe(0);
  });

  it('reports a failed build and releases the lock', async () => {
    write('fail-build', '');
    await expect(ensureFreshBuild(root, quiet)).rejects.toThrow('scripts/build.js failed (3)');
    expect(fs.existsSync(path.join(root, '.build-lock'))).toBe(false);
    fs.rmSync(path.join(root, 'fail-build'));
    expect(await ensureFreshBuild(root, quiet)).toBe('built');
  });
});
