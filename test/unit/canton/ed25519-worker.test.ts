import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { Ed25519Verifier, parsePublicKey } from '@ledgerline/canton';
import { Ed25519Worker } from '@ledgerline/canton/ed25519-worker';
import { ed25519WorkerScriptForTests } from '../../support/ed25519-worker-script';

function keyPair() {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const raw = (publicKey.export({ format: 'der', type: 'spki' }) as Buffer).subarray(12);
  const parsed = parsePublicKey({
    format: 'CRYPTO_KEY_FORMAT_RAW',
    keyData: raw,
    keySpec: 'SIGNING_KEY_SPEC_EC_CURVE25519',
  });
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

// libsodium (sodium-native) is a dependency and the worker runs it: without it these tests fail, they do not skip.
const libsodium = new Ed25519Verifier({ backend: 'libsodium' });
const inPlace = (s: Uint8Array, m: Uint8Array, k: Uint8Array) =>
  libsodium.verify(
    s,
    m,
    k,
    parsePublicKey({
      format: 'CRYPTO_KEY_FORMAT_RAW',
      keyData: Buffer.from(k),
      keySpec: 'SIGNING_KEY_SPEC_EC_CURVE25519',
    }).keyObject,
  );

describe('Ed25519 checks on the worker thread', () => {
  const workers: Ed25519Worker[] = [];
  const start = () => {
    let inPlaceCalls = 0;
    const w = new Ed25519Worker(ed25519WorkerScriptForTests(), require.resolve('sodium-native'), (s, m, k) => {
      inPlaceCalls += 1;
      return inPlace(s, m, k);
    });
    workers.push(w);
    return { w, inPlaceCalls: () => inPlaceCalls };
  };
  afterEach(async () => {
    await Promise.all(workers.splice(0).map((w) => w.close()));
  });

  it('libsodium loads (sodium-native is a dependency; the worker runs it)', () => {
    expect(libsodium.backend).toBe('libsodium');
  });

  it('answers as the in-place check, for 3,000 checks at once (more than the ring holds: the rest run in place)', async () => {
    const { w, inPlaceCalls } = start();
    const all = jobs(3000);
    const answers = await Promise.all(all.map((j) => w.verify(j.signature, j.message, j.key.raw)));
    expect(answers).toEqual(all.map((j) => j.expected));
    // Messages over 64 bytes never enter the ring. The ring holds 1,024 unanswered jobs, and the 3,000 are submitted
    // without yielding, so most of the others run in place too: a slot frees during the burst only for an answer the
    // worker wrote before the event loop armed its wait (a few at most, depending on how fast the worker wakes).
    const long = all.filter((j) => j.message.length > 64).length;
    expect(long).toBeGreaterThan(0);
    expect(inPlaceCalls()).toBeGreaterThan(long + 1000);
    expect(inPlaceCalls()).toBeLessThan(3000);
  });

  // SCHED_BATCH is a Linux scheduling policy (set through util-linux's chrt, part of every Linux base system): elsewhere
  // there is nothing to check.
  it.skipIf(process.platform !== 'linux')(
    'runs under SCHED_BATCH on Linux, so that waking it does not preempt the event loop',
    async () => {
      const before = batchThreads();
      const { w } = start();
      const [job] = jobs(1);
      expect(await w.verify(job.signature, job.message, job.key.raw)).toBe(true); // answered: the worker is past its set-up
      expect(batchThreads()).toBe(before + 1);
      await w.close();
      // the thread leaves /proc/self/task once it has been joined
      for (let i = 0; i < 100 && batchThreads() !== before; i++) await new Promise((r) => setTimeout(r, 10));
      expect(batchThreads()).toBe(before);
    },
  );

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

  it('Ed25519Verifier: with a worker script, checks on its worker until closed; the answers stay the same', async () => {
    const all = jobs(200);
    const check = async (v: Ed25519Verifier) =>
      expect(
        await Promise.all(all.map((j) => v.verifyAsync(j.signature, j.message, j.key.raw, j.key.parsed.keyObject))),
      ).toEqual(all.map((j) => j.expected));
    expect(libsodium.workerRunning).toBe(false);
    await check(libsodium);
    const onWorker = new Ed25519Verifier({ backend: 'libsodium', workerScript: ed25519WorkerScriptForTests() });
    try {
      expect(onWorker.workerRunning).toBe(true);
      await check(onWorker);
    } finally {
      await onWorker.close();
    }
    expect(onWorker.workerRunning).toBe(false);
    await check(onWorker);
    // OpenSSL checks never go to the worker (it runs libsodium)
    const openssl = new Ed25519Verifier({ backend: 'openssl', workerScript: ed25519WorkerScriptForTests() });
    expect(openssl.workerRunning).toBe(false);
    await check(openssl);
  });

  it('a missing worker script is an error, not a silent fallback to in-place checks', () => {
    expect(
      () => new Ed25519Verifier({ backend: 'libsodium', workerScript: '/nonexistent/ed25519-worker.thread.js' }),
    ).toThrow(/does not exist/);
  });
});
