import fs from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';

/**
 * Ed25519 checks on a worker thread, handed over through shared memory.
 *
 * Why: under load the server's event loop is the bottleneck (one core, ~95 % on CPU), while the second core has room.
 * An executeAndWait checks one Ed25519 signature (libsodium: see ed25519.ts for its cost), a large share of the event
 * loop's work per request. `postMessage` per check cost about as much as the check itself, so the hand-off
 * here is a ring of slots in a SharedArrayBuffer: the event loop writes a job (signature, key, message) and
 * bumps a counter; the worker, asleep on that counter when idle, checks the jobs in order, writes each answer and bumps
 * its own counter; the event loop learns of answers through `Atomics.waitAsync` (one wake-up for all the answers ready).
 *
 * On Linux the worker runs under SCHED_BATCH, so that its wake-ups do not preempt the event loop (without it, the event
 * loop spent ~40 µs per hand-off off its CPU; see ed25519-worker.thread.ts).
 *
 * The worker runs the same libsodium function as the in-place check, so the answers are the same. A job the ring cannot
 * take (full, or a message longer than a slot holds) is checked in place. If the worker dies, the jobs it had not
 * answered are checked in place and later ones stay in place.
 */

/** Bytes of a message a slot holds (prepared-transaction hashes are 32; topology multihashes 34). */
const MAX_MESSAGE = 64;
const SLOT = 64 /* signature */ + 32 /* key */ + 1 /* message length */ + MAX_MESSAGE + 1; /* answer */
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
const LAYOUT = { HEADER, SLOT, MASK, SIG, KEY, LEN, MSG, ANSWER, SUBMITTED, ANSWERED, ASLEEP };

/** The part of `sodium-native` the checks use. */
export interface Sodium {
  crypto_sign_verify_detached(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): boolean;
}

/** What the worker thread (ed25519-worker.thread.ts) is started with. */
export interface Ed25519WorkerData {
  sab: SharedArrayBuffer;
  /** Resolved path of `sodium-native`: the worker loads the same build as the event loop. */
  sodiumPath: string;
  layout: typeof LAYOUT;
}

/**
 * The compiled worker script beside this module (dist/libs/canton/src/ed25519-worker.thread.js). A worker thread runs
 * JavaScript only: run from the TypeScript sources (vitest), there is no such file, and whoever starts a worker there
 * must compile ed25519-worker.thread.ts first (the tests do, see test/support/ed25519-worker-script.ts).
 */
export function ed25519WorkerScript(): string {
  return path.join(__dirname, 'ed25519-worker.thread.js');
}

// Node 16+ (V8) has it; TypeScript's lib declares it from es2024 on.
type WaitAsync = (
  a: Int32Array,
  index: number,
  value: number,
) => { async: false; value: string } | { async: true; value: Promise<string> };
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
   * @param script the compiled worker script (see ed25519WorkerScript); a missing file is an error, not a silent fallback
   * @param sodiumPath resolved path of `sodium-native` (the worker loads the same build)
   * @param inPlace the in-place check, for what the ring cannot take and for a dead worker's jobs
   */
  constructor(
    script: string,
    sodiumPath: string,
    private readonly inPlace: (signature: Uint8Array, message: Uint8Array, rawPublicKey: Uint8Array) => boolean,
  ) {
    if (!fs.existsSync(script)) {
      throw new Error(
        `The Ed25519 worker script ${script} does not exist: the worker runs the compiled script (npm run build)`,
      );
    }
    const workerData: Ed25519WorkerData = { sab: this.sab, sodiumPath, layout: LAYOUT };
    this.worker = new Worker(script, { workerData });
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
