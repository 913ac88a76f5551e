import { Worker } from 'node:worker_threads';

/**
 * Ed25519 checks on a worker thread, handed over through shared memory.
 *
 * Why: under load the server's event loop is the bottleneck (one core, ~95 % on CPU), while the second core has room.
 * An executeAndWait checks one Ed25519 signature (libsodium, 35–70 µs depending on the host), a large share of the
 * event loop's work per request. `postMessage` per check cost about as much as the check itself, so the
 * hand-off here is a ring of slots in a SharedArrayBuffer: the event loop writes a job (signature, key, message) and
 * bumps a counter; the worker, asleep on that counter when idle, checks the jobs in order, writes each answer and bumps
 * its own counter; the event loop learns of answers through `Atomics.waitAsync` (one wake-up for all the answers ready).
 *
 * On Linux the worker runs under SCHED_BATCH, so that its wake-ups do not preempt the event loop (without it,
 * the event loop spent ~40 µs per hand-off off its CPU; see the worker's source).
 *
 * The worker runs the same libsodium function as the in-place check, so the answers are the same. A job the ring cannot
 * take (full, or a message longer than a slot holds) is checked in place. If the worker dies, the jobs it had not
 * answered are checked in place and later ones stay in place.
 */

/** Bytes of a message a slot holds (prepared-transaction hashes are 32; topology multihashes 34). */
const MAX_MESSAGE = 64;
const SLOT = 64 /* signature */ + 32 /* key */ + 1 /* message length */ + MAX_MESSAGE + 1 /* answer */;
const SLOTS = 1024; // a power of two: slot = counter & MASK
const MASK = SLOTS - 1;
const HEADER = 16; // Int32 ×4: [0] jobs submitted, [1] jobs answered, [2] worker asleep
const SUBMITTED = 0;
const ANSWERED = 1;
const ASLEEP = 2;
const SIG = 0;
const KEY = 64;
const LEN = 96;
const MSG = 97;
const ANSWER = 97 + MAX_MESSAGE;

// The worker's code, evaluated as CommonJS in the worker (no file to resolve: it runs the same from sources and dist).
const WORKER_SOURCE = `
const { workerData } = require('node:worker_threads');
const sodium = require(workerData.sodium);
// Linux: SCHED_BATCH (through util-linux's chrt, where present; otherwise the thread stays as it is). The same share of
// the CPU as a normal thread, but waking it does not preempt the thread that woke it: the event loop, which has just
// handed over a job and has more to do. Without it the worker's wake-up took the event loop's core from it.
if (process.platform === 'linux') {
  try {
    const tid = require('node:fs').readlinkSync('/proc/thread-self').split('/').pop();
    require('node:child_process').execFileSync('chrt', ['--batch', '-p', '0', tid], { stdio: 'ignore', timeout: 5000 });
  } catch {}
}
const ctl = new Int32Array(workerData.sab, 0, 4);
const bytes = new Uint8Array(workerData.sab);
const { HEADER, SLOT, MASK, SIG, KEY, LEN, MSG, ANSWER } = workerData.layout;
// Views of each slot's fields, made once: the loop allocates nothing, so this isolate never needs a collection.
const sigs = [], keys = [], msgs = [];
for (let slot = 0; slot <= MASK; slot++) {
  const at = HEADER + slot * SLOT;
  sigs.push(bytes.subarray(at + SIG, at + SIG + 64));
  keys.push(bytes.subarray(at + KEY, at + KEY + 32));
  msgs.push([]);
}
const messageOf = (slot, len) => msgs[slot][len] ?? (msgs[slot][len] = bytes.subarray(HEADER + slot * SLOT + MSG, HEADER + slot * SLOT + MSG + len));
let answered = Atomics.load(ctl, 1);
for (;;) {
  let submitted = Atomics.load(ctl, 0);
  if (submitted === answered) {
    Atomics.store(ctl, 2, 1);
    submitted = Atomics.load(ctl, 0);
    if (submitted === answered) Atomics.wait(ctl, 0, answered);
    Atomics.store(ctl, 2, 0);
    continue;
  }
  while (answered !== submitted) {
    const slot = answered & MASK;
    const at = HEADER + slot * SLOT;
    let ok = false;
    try {
      ok = sodium.crypto_sign_verify_detached(sigs[slot], messageOf(slot, bytes[at + LEN]), keys[slot]);
    } catch {
      ok = false;
    }
    bytes[at + ANSWER] = ok ? 1 : 0;
    answered = (answered + 1) | 0;
    Atomics.store(ctl, 1, answered);
  }
  Atomics.notify(ctl, 1);
}
`;

// Node 16+ (V8) has it; TypeScript's lib declares it from es2024 on.
type WaitAsync = (a: Int32Array, index: number, value: number) => { async: false; value: string } | { async: true; value: Promise<string> };
const waitAsync: WaitAsync = (Atomics as unknown as { waitAsync: WaitAsync }).waitAsync;

export class Ed25519Worker {
  private readonly sab = new SharedArrayBuffer(HEADER + SLOTS * SLOT);
  private readonly ctl = new Int32Array(this.sab, 0, 4);
  private readonly bytes = new Uint8Array(this.sab);
  private readonly waiting: Array<((ok: boolean) => void) | undefined> = new Array(SLOTS);
  private submitted = 0;
  private answered = 0;
  private armed = false;
  private dead = false;
  private readonly worker: Worker;

  /**
   * @param sodiumPath resolved path of `sodium-native` (the worker loads the same build)
   * @param inPlace the in-place check, for what the ring cannot take and for a dead worker's jobs
   */
  constructor(
    sodiumPath: string,
    private readonly inPlace: (signature: Uint8Array, message: Uint8Array, rawPublicKey: Uint8Array) => boolean,
  ) {
    this.worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { sab: this.sab, sodium: sodiumPath, layout: { HEADER, SLOT, MASK, SIG, KEY, LEN, MSG, ANSWER } },
    });
    this.worker.unref();
    const die = () => this.die();
    this.worker.on('error', die);
    this.worker.on('exit', die);
  }

  /** Whether the worker still takes jobs. */
  get alive(): boolean {
    return !this.dead;
  }

  verify(signature: Uint8Array, message: Uint8Array, rawPublicKey: Uint8Array): Promise<boolean> {
    if (this.dead || message.length > MAX_MESSAGE || ((this.submitted - this.answered) | 0) >= SLOTS) {
      return Promise.resolve(this.inPlace(signature, message, rawPublicKey));
    }
    const slot = this.submitted & MASK;
    const at = HEADER + slot * SLOT;
    this.bytes.set(signature, at + SIG);
    this.bytes.set(rawPublicKey, at + KEY);
    this.bytes[at + LEN] = message.length;
    this.bytes.set(message, at + MSG);
    const answer = new Promise<boolean>((resolve) => (this.waiting[slot] = resolve));
    this.submitted = (this.submitted + 1) | 0;
    Atomics.store(this.ctl, SUBMITTED, this.submitted);
    // Wake the worker if it sleeps. Clearing the flag here (not when the worker wakes) means one wake-up per sleep: the
    // jobs submitted before the worker runs again do not each pay a futex call (~10 µs on a virtual machine).
    if (Atomics.compareExchange(this.ctl, ASLEEP, 1, 0) === 1) Atomics.notify(this.ctl, SUBMITTED);
    this.arm();
    return answer;
  }

  /** Stops the worker; jobs not yet answered are checked in place. */
  async close(): Promise<void> {
    if (this.dead) return;
    this.dead = true;
    await this.worker.terminate();
    this.die();
  }

  /** Waits (without blocking) for the worker's answer counter to move past what has been collected. */
  private arm(): void {
    while (!this.armed && this.answered !== this.submitted) {
      const w = waitAsync(this.ctl, ANSWERED, this.answered);
      if (w.async) {
        this.armed = true;
        void w.value.then(() => {
          this.armed = false;
          this.collect();
          this.arm();
        });
        return;
      }
      this.collect(); // answers already there
    }
  }

  /** Resolves every answered job (and, once the worker is dead, checks the rest in place). */
  private collect(): void {
    // Answers the worker wrote and this side has not collected (none once a dead worker's jobs were checked in place).
    for (let n = (Atomics.load(this.ctl, ANSWERED) - this.answered) | 0; n > 0; n--) {
      const slot = this.answered & MASK;
      const resolve = this.waiting[slot]!;
      this.waiting[slot] = undefined;
      this.answered = (this.answered + 1) | 0;
      resolve(this.bytes[HEADER + slot * SLOT + ANSWER] === 1);
    }
    if (!this.dead) return;
    while (this.answered !== this.submitted) {
      const slot = this.answered & MASK;
      const at = HEADER + slot * SLOT;
      const resolve = this.waiting[slot]!;
      this.waiting[slot] = undefined;
      this.answered = (this.answered + 1) | 0;
      resolve(
        this.inPlace(
          this.bytes.slice(at + SIG, at + SIG + 64),
          this.bytes.slice(at + MSG, at + MSG + this.bytes[at + LEN]),
          this.bytes.slice(at + KEY, at + KEY + 32),
        ),
      );
    }
  }

  private die(): void {
    this.dead = true;
    this.collect();
    Atomics.notify(this.ctl, ANSWERED); // ends a pending waitAsync
  }
}
