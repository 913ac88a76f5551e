import { execFileSync } from 'node:child_process';
import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { ed25519Backend, ed25519Verify, ed25519VerifyAsync, ed25519WorkerRunning, parsePublicKey, useEd25519Worker } from '@ledgerline/canton';
import { Ed25519Worker } from '@ledgerline/canton/ed25519-worker';

function keyPair() {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const raw = (publicKey.export({ format: 'der', type: 'spki' }) as Buffer).subarray(12);
  const parsed = parsePublicKey({ format: 'CRYPTO_KEY_FORMAT_RAW', keyData: raw, keySpec: 'SIGNING_KEY_SPEC_EC_CURVE25519' });
  return { privateKey, raw, parsed };
}

interface Job {
  signature: Buffer;
  message: Buffer;
  key: ReturnType<typeof keyPair>;
  expected: boolean;
}

/** `n` checks: valid ones, a flipped message bit, a flipped signature bit, another key; messages of 1 to 80 bytes. */
function jobs(n: number): Job[] {
  const keys = Array.from({ length: 8 }, keyPair);
  const out: Job[] = [];
  for (let i = 0; i < n; i++) {
    const key = keys[i % keys.length];
    const message = randomBytes(i % 5 === 0 ? 1 + (i % 80) : 32);
    const signature = sign(null, message, key.privateKey);
    switch (i % 4) {
      case 0:
        out.push({ signature, message, key, expected: true });
        break;
      case 1: {
        const m = Buffer.from(message);
        m[i % m.length] ^= 1 << (i % 8);
        out.push({ signature, message: m, key, expected: false });
        break;
      }
      case 2: {
        const s = Buffer.from(signature);
        s[i % 64] ^= 1 << (i % 8);
        out.push({ signature: s, message, key, expected: false });
        break;
      }
      default:
        out.push({ signature, message, key: keys[(i + 1) % keys.length], expected: false });
    }
  }
  return out;
}

/** Threads of this process whose scheduling policy is SCHED_BATCH (3): field 41 of /proc/self/task/<tid>/stat. */
const batchThreads = (): number =>
  fs.readdirSync('/proc/self/task').filter((tid) => {
    const stat = fs.readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[41 - 3] === '3';
  }).length;

const hasChrt = (() => {
  try {
    execFileSync('chrt', ['--version'], { stdio: 'ignore' });
    return process.platform === 'linux';
  } catch {
    return false;
  }
})();

const inPlace = (s: Uint8Array, m: Uint8Array, k: Uint8Array) => ed25519Verify(s, m, k, parsePublicKey({ format: 'CRYPTO_KEY_FORMAT_RAW', keyData: Buffer.from(k), keySpec: 'SIGNING_KEY_SPEC_EC_CURVE25519' }).keyObject);

describe.skipIf(ed25519Backend !== 'libsodium')('Ed25519 checks on the worker thread', () => {
  const workers: Ed25519Worker[] = [];
  const start = () => {
    let inPlaceCalls = 0;
    const w = new Ed25519Worker(require.resolve('sodium-native'), (s, m, k) => {
      inPlaceCalls += 1;
      return inPlace(s, m, k);
    });
    workers.push(w);
    return { w, inPlaceCalls: () => inPlaceCalls };
  };
  afterEach(async () => {
    await Promise.all(workers.splice(0).map((w) => w.close()));
  });

  it('answers as the in-place check, for 3,000 checks at once (more than the ring holds: the rest run in place)', async () => {
    const { w, inPlaceCalls } = start();
    const all = jobs(3000);
    const answers = await Promise.all(all.map((j) => w.verify(j.signature, j.message, j.key.raw)));
    expect(answers).toEqual(all.map((j) => j.expected));
    // the ring holds 1,024 jobs; messages over 64 bytes never enter it
    expect(inPlaceCalls()).toBeGreaterThanOrEqual(3000 - 1024);
    expect(inPlaceCalls()).toBeLessThan(3000);
  });

  it.skipIf(!hasChrt)('runs under SCHED_BATCH on Linux, so that waking it does not preempt the event loop', async () => {
    const before = batchThreads();
    const { w } = start();
    const [job] = jobs(1);
    expect(await w.verify(job.signature, job.message, job.key.raw)).toBe(true); // answered: the worker is past its set-up
    expect(batchThreads()).toBe(before + 1);
    await w.close();
    // the thread leaves /proc/self/task once it has been joined
    for (let i = 0; i < 100 && batchThreads() !== before; i++) await new Promise((r) => setTimeout(r, 10));
    expect(batchThreads()).toBe(before);
  });

  it('goes round the ring many times, one wave after the other', async () => {
    const { w, inPlaceCalls } = start();
    const wave = jobs(600).filter((j) => j.message.length <= 64);
    for (let round = 0; round < 8; round++) {
      const answers = await Promise.all(wave.map((j) => w.verify(j.signature, j.message, j.key.raw)));
      expect(answers).toEqual(wave.map((j) => j.expected));
    }
    expect(inPlaceCalls()).toBe(0);
  });

  it('a worker stopped with checks pending: they are answered in place, and so are later ones', async () => {
    const { w, inPlaceCalls } = start();
    const all = jobs(800).filter((j) => j.message.length <= 64);
    const pending = all.map((j) => w.verify(j.signature, j.message, j.key.raw));
    await w.close();
    expect(await Promise.all(pending)).toEqual(all.map((j) => j.expected));
    expect(w.alive).toBe(false);
    const before = inPlaceCalls();
    expect(await w.verify(all[0].signature, all[0].message, all[0].key.raw)).toBe(all[0].expected);
    expect(inPlaceCalls()).toBe(before + 1);
  });

  it('useEd25519Worker: shared by its users, stopped when the last one releases it; the answers stay the same', async () => {
    const all = jobs(200);
    const check = async () => expect(await Promise.all(all.map((j) => ed25519VerifyAsync(j.signature, j.message, j.key.raw, j.key.parsed.keyObject)))).toEqual(all.map((j) => j.expected));
    expect(ed25519WorkerRunning()).toBe(false);
    await check();
    const a = useEd25519Worker();
    const b = useEd25519Worker();
    expect(ed25519WorkerRunning()).toBe(true);
    await check();
    a();
    a(); // releasing twice counts once
    expect(ed25519WorkerRunning()).toBe(true);
    await check();
    b();
    expect(ed25519WorkerRunning()).toBe(false);
    await check();
  });
});
