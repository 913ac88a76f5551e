/**
 * The Ed25519 worker thread's code (see ed25519-worker.ts for the ring it serves). Run by `new Worker(<this file,
 * compiled>)`, never imported: it starts its loop at load. It imports nothing at run time but Node's own modules and the
 * `sodium-native` build it is given, so that its compiled form runs wherever it is placed.
 */
import { execFileSync } from 'node:child_process';
import { readlinkSync } from 'node:fs';
import { workerData as data } from 'node:worker_threads';
import type { Ed25519WorkerData, Sodium } from './ed25519-worker';

const workerData = data as Ed25519WorkerData;
// eslint-disable-next-line @typescript-eslint/no-require-imports -- the parent's resolved build, a path known at run time
const sodium = require(workerData.sodiumPath) as Sodium;

// Linux: SCHED_BATCH (through util-linux's chrt, where present; otherwise the thread stays as it is). The same share of
// the CPU as a normal thread, but waking it does not preempt the thread that woke it: the event loop, which has just
// handed over a job and has more to do. Without it the worker's wake-up took the event loop's core from it.
if (process.platform === 'linux') {
  try {
    const tid = readlinkSync('/proc/thread-self').split('/').pop()!;
    execFileSync('chrt', ['--batch', '-p', '0', tid], { stdio: 'ignore', timeout: 5000 });
  } catch {
    // no chrt (or not allowed): the thread keeps the normal policy
  }
}

const { HEADER, SLOT, MASK, SIG, KEY, LEN, MSG, ANSWER, SUBMITTED, ANSWERED, ASLEEP } = workerData.layout;
const ctl = new Int32Array(workerData.sab, 0, 4);
const bytes = new Uint8Array(workerData.sab);

// Views of each slot's fields, made once: the loop allocates nothing, so this isolate never needs a collection.
const sigs: Uint8Array[] = [];
const keys: Uint8Array[] = [];
const msgs: Uint8Array[][] = [];
for (let slot = 0; slot <= MASK; slot++) {
  const at = HEADER + slot * SLOT;
  sigs.push(bytes.subarray(at + SIG, at + SIG + 64));
  keys.push(bytes.subarray(at + KEY, at + KEY + 32));
  msgs.push([]);
}
const messageOf = (slot: number, len: number): Uint8Array => {
  const at = HEADER + slot * SLOT + MSG;
  return (msgs[slot][len] ??= bytes.subarray(at, at + len));
};

let answered = Atomics.load(ctl, ANSWERED);
for (;;) {
  let submitted = Atomics.load(ctl, SUBMITTED);
  if (submitted === answered) {
    Atomics.store(ctl, ASLEEP, 1);
    submitted = Atomics.load(ctl, SUBMITTED);
    if (submitted === answered) Atomics.wait(ctl, SUBMITTED, answered);
    Atomics.store(ctl, ASLEEP, 0);
    continue;
  }
  while (answered !== submitted) {
    const slot = answered & MASK;
    const at = HEADER + slot * SLOT;
    let ok: boolean;
    try {
      ok = sodium.crypto_sign_verify_detached(sigs[slot], messageOf(slot, bytes[at + LEN]), keys[slot]);
    } catch {
      ok = false;
    }
    bytes[at + ANSWER] = ok ? 1 : 0;
    answered = (answered + 1) | 0;
    Atomics.store(ctl, ANSWERED, answered);
  }
  Atomics.notify(ctl, ANSWERED);
}
