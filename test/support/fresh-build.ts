import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/**
 * Keeps dist/ (what the end-to-end tests run as a child process) in step with the sources. `scripts/build.js` compiles
 * every `.ts` under these folders to `dist/<same path>.js`, so the build is stale when a source has no output, a source is
 * newer than its output, or an output has lost its source (a moved or deleted file). The explorer page (apps/explorer) is
 * one bundle instead: stale when any of its files is newer than the bundle.
 */
export const BUILD_SOURCES = ['apps', 'libs', 'bench', 'testkit'];
const EXPLORER = 'apps/explorer';
const EXPLORER_BUNDLE = 'dist/apps/explorer/assets/explorer.js';
const REQUIRED_OUTPUTS = ['dist/apps/server/src/main.js', 'dist/apps/ledgerctl/src/main.js'];
const BUILD_SCRIPT = 'scripts/build.js';
const LOCK = '.build-lock';

function* walk(dir: string, keep: (name: string) => boolean, skip?: string): Generator<string> {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const entry of entries) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (p !== skip) yield* walk(p, keep, skip);
    } else if (keep(entry.name)) yield p;
  }
}

const mtime = (file: string): number | undefined => {
  try {
    return fs.statSync(file).mtimeMs;
  } catch {
    return undefined;
  }
};

/** Why dist/ under `root` does not match the sources, or null when it does. */
export function staleBuild(root: string): string | null {
  for (const required of REQUIRED_OUTPUTS)
    if (mtime(path.join(root, required)) === undefined) return `${required} is missing`;
  const script = mtime(path.join(root, BUILD_SCRIPT));
  const serverMain = mtime(path.join(root, REQUIRED_OUTPUTS[0]))!;
  if (script !== undefined && script > serverMain) return `${BUILD_SCRIPT} is newer than the build`;
  if (fs.existsSync(path.join(root, EXPLORER))) {
    const bundle = mtime(path.join(root, EXPLORER_BUNDLE));
    if (bundle === undefined) return `${EXPLORER_BUNDLE} is missing`;
    for (const source of walk(path.join(root, EXPLORER), () => true)) {
      if (mtime(source)! > bundle) return `${path.relative(root, source)} is newer than the explorer bundle`;
    }
  }
  for (const top of BUILD_SOURCES) {
    for (const source of walk(
      path.join(root, top),
      (n) => n.endsWith('.ts') && !n.endsWith('.d.ts'),
      path.join(root, EXPLORER),
    )) {
      const rel = path.relative(root, source);
      const built = mtime(path.join(root, 'dist', rel.replace(/\.ts$/, '.js')));
      if (built === undefined) return `${rel} has no build`;
      if (mtime(source)! > built) return `${rel} is newer than its build`;
    }
    for (const output of walk(
      path.join(root, 'dist', top),
      (n) => n.endsWith('.js'),
      path.join(root, 'dist', EXPLORER),
    )) {
      const rel = path.relative(path.join(root, 'dist'), output);
      if (!fs.existsSync(path.join(root, rel.replace(/\.js$/, '.ts')))) return `dist/${rel} has no source any more`;
    }
  }
  return null;
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** Takes the build lock (a directory holding the owner's pid), or returns false when a live process holds it. */
function tryLock(lock: string): boolean {
  try {
    fs.mkdirSync(lock);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    let owner: number | undefined;
    try {
      owner = Number(fs.readFileSync(path.join(lock, 'pid'), 'utf8'));
    } catch {
      // Between the owner's mkdir and its pid file; a lock left that way for a minute has lost its owner.
      const since = mtime(lock);
      if (since !== undefined && Date.now() - since < 60_000) return false;
    }
    if (owner !== undefined && alive(owner)) return false;
    fs.rmSync(lock, { recursive: true, force: true });
    return tryLock(lock);
  }
  fs.writeFileSync(path.join(lock, 'pid'), String(process.pid));
  return true;
}

function runBuild(root: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(root, BUILD_SCRIPT)], {
      cwd: root,
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    child.once('error', reject);
    child.once('exit', (code, signal) =>
      code === 0 ? resolve() : reject(new Error(`${BUILD_SCRIPT} failed (${code ?? signal})`)),
    );
  });
}

/**
 * Rebuilds dist/ when it is stale. One caller builds at a time, across processes (a lock directory in `root`); a caller
 * that finds the lock held waits for it, then builds only if the build it waited for did not make dist/ current.
 * Returns what it did: 'fresh' (nothing to do), 'built', or 'built-elsewhere' (another process's build sufficed).
 */
export async function ensureFreshBuild(
  root: string,
  opts: { timeoutMs?: number; log?: (line: string) => void } = {},
): Promise<'fresh' | 'built' | 'built-elsewhere'> {
  if (staleBuild(root) === null) return 'fresh';
  const lock = path.join(root, LOCK);
  const until = Date.now() + (opts.timeoutMs ?? 300_000);
  let waited = false;
  while (!tryLock(lock)) {
    if (Date.now() > until) throw new Error(`another process has held ${lock} for too long`);
    waited = true;
    await new Promise((r) => setTimeout(r, 100));
  }
  try {
    const reason = staleBuild(root);
    if (reason === null) return waited ? 'built-elsewhere' : 'fresh';
    (opts.log ?? console.log)(`[tests] building dist/: ${reason}`);
    await runBuild(root);
    return 'built';
  } finally {
    fs.rmSync(lock, { recursive: true, force: true });
  }
}
