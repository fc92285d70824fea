// WorkerPool: several worker processes behind one call interface, restarted when they die.

import { WorkerClosedError, WorkerDiedError } from './errors.js';
import { spawnWorker } from './worker.js';

/**
 * Spreads calls over `size` workers (each call goes to the live worker with the fewest in flight).
 *
 * Important: when a worker dies its in-flight calls reject with `WorkerDiedError` (they are not retried: the
 * caller decides whether a job is safe to repeat) and the pool starts a replacement, with back-off if
 * replacements keep dying soon after starting. `close()` ends every child.
 */
export class WorkerPool {
  #options;
  #slots;
  #closing = false;
  #closePromise = null;
  #waiters = [];
  #next = 0;
  #maxQuickDeaths;
  /** How many times a dead worker has been replaced. */
  restarts = 0;

  /**
   * @param {object} options `size` plus the options of `spawnWorker` (`executable`, `args`, `maxMemory`, ...);
   *   `maxQuickDeaths` (default 5): a slot whose workers die this many times in a row within a second of
   *   starting is given up. `maxMemory` is each worker's `--max-memory`: the workers of a pool share one
   *   machine, and each one left to its default budgets 90% of all of it, so give each its share, e.g. the memory
   *   meant for the pool divided by `size`.
   */
  constructor({ size, maxQuickDeaths = 5, ...workerOptions }) {
    if (!Number.isInteger(size) || size < 1) throw new RangeError('size must be a positive integer');
    this.#options = workerOptions;
    this.#maxQuickDeaths = maxQuickDeaths;
    this.#slots = Array.from({ length: size }, (_, index) => ({ index, worker: null, quickDeaths: 0, gaveUp: false }));
    for (const slot of this.#slots) this.#startWorker(slot);
  }

  /** The current worker of each slot (null while a slot waits to be restarted). */
  get workers() { return this.#slots.map((slot) => slot.worker); }

  /** `Worker.call` on the least busy live worker (waiting for a restart if none is alive). */
  async call(method, params, options) {
    return (await this.#pick()).call(method, params, options);
  }

  /** `Worker.stream` on the least busy live worker. */
  async *stream(method, params, options) {
    yield* (await this.#pick()).stream(method, params, options);
  }

  /** Closes every worker gracefully (in-flight calls finish); see `Worker.close`. Idempotent. */
  close(options) {
    this.#closePromise ??= (async () => {
      this.#closing = true;
      for (const slot of this.#slots) clearTimeout(slot.timer);
      this.#wake();
      await Promise.all(this.#slots.map((slot) => slot.worker?.close(options)));
    })();
    return this.#closePromise;
  }

  async #pick() {
    for (;;) {
      if (this.#closing) throw new WorkerClosedError('the pool is closed');
      const live = this.#slots.filter((slot) => slot.worker?.alive);
      if (live.length > 0) {
        // Fewest in flight; ties go round-robin so idle workers share the load.
        this.#next = (this.#next + 1) % this.#slots.length;
        const rank = (slot) => slot.worker.inFlight * this.#slots.length
          + ((slot.index - this.#next + this.#slots.length) % this.#slots.length);
        return live.reduce((best, slot) => (rank(slot) < rank(best) ? slot : best)).worker;
      }
      if (this.#slots.every((slot) => slot.gaveUp)) {
        throw new WorkerDiedError('no live worker in the pool: every worker died and could not be restarted');
      }
      await new Promise((resolve) => this.#waiters.push(resolve));
    }
  }

  #wake() {
    for (const resolve of this.#waiters.splice(0)) resolve();
  }

  #startWorker(slot) {
    const worker = spawnWorker(this.#options);
    const startedAt = Date.now();
    slot.worker = worker;
    worker.exited.then(() => this.#onExit(slot, worker, startedAt));
    this.#wake();
  }

  #onExit(slot, worker, startedAt) {
    if (slot.worker !== worker) return;
    if (this.#closing) {
      this.#wake();
      return;
    }
    slot.worker = null;
    slot.quickDeaths = Date.now() - startedAt < 1000 ? slot.quickDeaths + 1 : 0;
    if (slot.quickDeaths >= this.#maxQuickDeaths) {
      slot.gaveUp = true;
      this.#wake();
      return;
    }
    const delay = slot.quickDeaths === 0 ? 0 : Math.min(5000, 50 * 2 ** (slot.quickDeaths - 1));
    slot.timer = setTimeout(() => {
      if (this.#closing) return;
      this.restarts += 1;
      this.#startWorker(slot);
    }, delay);
  }
}

/** `new WorkerPool(options)`. */
export function createPool(options) {
  return new WorkerPool(options);
}
