// Worker: one photoworker child process driven over its stdio with JSON-RPC 2.0, one message per line.

import { spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import process from 'node:process';

import {
  ProtocolError, TimeoutError, WorkerClosedError, WorkerDiedError, WorkerError,
} from './errors.js';
import { bundledExecutable } from './bundled.js';

/** Default cap on one incoming line (an inline base64 image can be large; the worker caps its own input). */
export const DEFAULT_MAX_LINE_BYTES = 256 * 1024 * 1024;
const NEWLINE = 0x0a;

/** `$PHOTOWORKER_BIN`, else the worker bundled in the `photoworker` npm package, else `photoworker` from PATH. */
export function defaultExecutable() {
  return process.env.PHOTOWORKER_BIN || bundledExecutable() || 'photoworker';
}

/**
 * Starts a worker process and returns its client at once (a failure to start fails the first calls).
 *
 * @param {object} [options]
 * @param {string} [options.executable] defaults to `defaultExecutable()`
 * @param {string[]} [options.args]
 * @param {object} [options.env]
 * @param {string} [options.cwd]
 * @param {number} [options.stderrLines] how many stderr lines to keep for `stderrTail()` (default 2000)
 * @param {number} [options.maxLineBytes] cap on one incoming message
 * @param {'ndjson'|'content-length'} [options.framing] one message per line (default), or LSP's
 *   `Content-Length` headers; the worker detects which and answers in kind
 * @param {string|number} [options.maxMemory] the memory the whole worker may use (`--max-memory`): a number is
 *   bytes, a string is `'1.5G'`, `'768M'` (binary units), `'60%'` (of the smaller of the machine's memory and its
 *   cgroup's limit) or `'off'`. Unset, the worker takes 90% of that limit, which is right for one worker in a
 *   container with a memory limit; set it when several workers share a machine (each one its share). Jobs wait
 *   until their estimated peak fits; one that never could rejects with `OverMemoryBudget`. A value
 *   `maxMemoryArgs` refuses throws here, before spawning.
 * @returns {Worker}
 */
export function spawnWorker({ executable, args = [], env, cwd, maxMemory, ...options } = {}) {
  // Before spawning: a refused option leaves no process behind.
  checkFraming(options.framing ?? 'ndjson');
  const flags = [...args, ...maxMemoryArgs(maxMemory, args)];
  const child = spawn(executable ?? defaultExecutable(), flags, { env, cwd, stdio: ['pipe', 'pipe', 'pipe'] });
  return new Worker(child, options);
}

/**
 * The worker's flags for a `maxMemory` option: `['--max-memory', value]`, or `[]` when it is undefined or null.
 * A number is bytes; a string goes to the worker as written (a string the worker cannot read ends it at start,
 * with the reason on its stderr). Throws TypeError for another type, RangeError for a number that is not a whole
 * count of bytes of at least 1 or a blank string, and Error when `args` already name `--max-memory` (two values
 * for one flag, of which the worker would silently keep the last).
 */
export function maxMemoryArgs(maxMemory, args = []) {
  if (maxMemory === undefined || maxMemory === null) return [];
  if (typeof maxMemory === 'number') {
    if (!Number.isSafeInteger(maxMemory) || maxMemory < 1) {
      throw new RangeError(`maxMemory must be a whole number of bytes, at least 1, not ${maxMemory}`);
    }
  } else if (typeof maxMemory !== 'string') {
    throw new TypeError(`maxMemory must be a string or a number (bytes), not ${typeof maxMemory}`);
  } else if (maxMemory.trim() === '') {
    throw new RangeError('maxMemory must not be blank');
  }
  if (args.some((arg) => arg === '--max-memory' || String(arg).startsWith('--max-memory='))) {
    throw new Error('pass maxMemory or --max-memory in args, not both');
  }
  return ['--max-memory', String(maxMemory).trim()];
}

/**
 * A client for one worker process. Calls may be issued concurrently; replies are matched by id, in whatever
 * order the worker finishes them. Aborting a call's signal, or its timeout, sends `$/cancelRequest`.
 *
 * Important: if the process dies, every in-flight call rejects with `WorkerDiedError`, and so does every later
 * call; a dead Worker is never restarted (that is `WorkerPool`'s job). The worker's stderr is drained
 * continuously (`stderrTail()`, and a `'stderr'` event per line) so a chatty worker never blocks on a full pipe.
 * If this process ends without `close()`, the worker sees EOF on stdin, finishes its jobs and exits 0.
 *
 * Events: `'stderr'` (line), `'notification'` (method, params), `'protocolError'` (text), `'exit'` (code, signal).
 */
export class Worker extends EventEmitter {
  #child;
  #nextId = 1;
  #pending = new Map();
  /** Ids given up on (aborted, timed out): their late replies are expected and dropped quietly. */
  #abandoned = new Set();
  #stderr = [];
  #stderrLines;
  #stderrPartial = '';
  #partial = [];
  #partialBytes = 0;
  #skipping = false;
  #maxLineBytes;
  #framing;
  /** Content-Length framing: bytes received and not yet framed. */
  #headerBuffer = Buffer.alloc(0);
  #dead = null;
  #closing = false;
  #closePromise = null;
  #resolveExited;

  /** Lines from the worker that were not valid protocol (also emitted as `'protocolError'`). */
  protocolErrors = [];
  /** The `initialize` result, once `initialize()` has been called. */
  serverInfo = null;
  /** Resolves with `{ code, signal }` once the process has ended and its pipes are closed. */
  exited;

  constructor(child, { stderrLines = 2000, maxLineBytes = DEFAULT_MAX_LINE_BYTES, framing = 'ndjson' } = {}) {
    super();
    checkFraming(framing);
    this.#framing = framing;
    this.#child = child;
    this.#stderrLines = stderrLines;
    this.#maxLineBytes = maxLineBytes;
    this.exited = new Promise((resolve) => { this.#resolveExited = resolve; });
    child.stdout.on('data', (chunk) => this.#onStdout(chunk));
    child.stderr.on('data', (chunk) => this.#onStderr(chunk));
    // EPIPE and friends: the 'close' event below reports the death; a write error must not crash the host.
    child.stdin.on('error', () => {});
    child.on('error', (error) => {
      if (child.pid === undefined) this.#die(null, null, error); // failed to start
    });
    child.on('close', (code, signal) => this.#die(code, signal));
  }

  get pid() { return this.#child.pid; }
  /** How messages are delimited: 'ndjson' or 'content-length'. */
  get framing() { return this.#framing; }
  /** True until the process has ended. */
  get alive() { return this.#dead === null; }
  /** Calls sent and not yet answered. */
  get inFlight() { return this.#pending.size; }
  get exitCode() { return this.#child.exitCode; }
  get signalCode() { return this.#child.signalCode; }

  /** The last `lines` (default: all kept) lines the worker wrote to stderr. */
  stderrTail(lines) {
    return (lines === undefined ? this.#stderr : this.#stderr.slice(-lines)).join('\n');
  }

  /**
   * Sends a request and resolves with its result.
   *
   * Rejects with the `WorkerError` subclass for an error reply, `WorkerDiedError` if the process ends first,
   * `TimeoutError` after `timeout` ms, or `signal.reason` when `signal` aborts. A timeout or an abort sends
   * `$/cancelRequest` so the worker stops the job. `onProgress` receives the `$/progress` events.
   */
  call(method, params, { signal, timeout, onProgress } = {}) {
    return new Promise((resolve, reject) => {
      const call = this.#start(method, params, {
        signal, timeout, onEvent: onProgress,
        onSettle: (error, result) => (error ? reject(error) : resolve(result)),
      });
      if (call.error) reject(call.error);
    });
  }

  /**
   * Sends a request and yields its events as they arrive: `{kind: 'progress', done, total, message}`,
   * `{kind: 'item', index, result}` or `{kind: 'item', index, error}`, then one `{kind: 'result', value}`.
   * A final error is thrown after the events that preceded it. Leaving the loop early, an abort or the
   * `timeout` (ms, for the whole stream) cancels the job.
   */
  async *stream(method, params, { signal, timeout } = {}) {
    const queue = [];
    let wake = null;
    let final = null;
    const push = (entry) => { queue.push(entry); wake?.(); };
    const call = this.#start(method, params, {
      signal, timeout,
      onEvent: (event) => push({ event }),
      onSettle: (error, value) => { final = { error, value }; push(null); },
    });
    if (call.error) throw call.error;
    try {
      for (;;) {
        while (queue.length === 0) await new Promise((resolve) => { wake = resolve; });
        wake = null;
        const entry = queue.shift();
        if (entry === null) break;
        yield entry.event;
      }
      if (final.error) throw final.error;
      yield { kind: 'result', value: final.value };
    } finally {
      // Runs on break / return / throw too: a stream left early must stop its job.
      this.#abandon(call);
    }
  }

  /** Sends a notification (no reply). */
  notify(method, params) {
    if (this.#dead) throw this.#dead;
    this.#write(message(undefined, method, params));
  }

  /** Calls `initialize` and keeps the result in `serverInfo`. */
  async initialize(options = { timeout: 30_000 }) {
    this.serverInfo = await this.call('initialize', {}, options);
    return this.serverInfo;
  }

  ping(options = { timeout: 10_000 }) { return this.call('ping', undefined, options); }

  /**
   * Ends the worker gracefully: `shutdown` (in-flight calls finish), `exit`, EOF; resolves with the exit code.
   * After `timeout` ms it is sent SIGTERM, then SIGKILL. Idempotent.
   */
  close({ timeout = 10_000 } = {}) {
    this.#closePromise ??= this.#close(timeout);
    return this.#closePromise;
  }

  async #close(timeout) {
    const deadline = Date.now() + timeout;
    if (this.alive) {
      this.#closing = true;
      try {
        await new Promise((resolve, reject) => {
          const call = this.#start('shutdown', undefined, {
            timeout, closing: true, onSettle: (error) => (error ? reject(error) : resolve()),
          });
          if (call.error) reject(call.error);
        });
        this.#write(message(undefined, 'exit'));
      } catch {
        // dead already, timed out or refused: the signals below take over
      }
    }
    this.#closing = true;
    this.#child.stdin.end();
    await this.#reap(Math.max(100, deadline - Date.now()));
    return this.#child.exitCode;
  }

  /** SIGTERM: the worker answers every job with -32802 and exits; SIGKILL after `timeout` ms. */
  async terminate({ timeout = 5_000 } = {}) {
    this.#closing = true;
    this.#signal('SIGTERM');
    await this.#reap(timeout);
    return this.#child.exitCode;
  }

  /** SIGKILL; in-flight calls reject with `WorkerDiedError`. */
  async kill() {
    this.#closing = true;
    this.#signal('SIGKILL');
    await this.exited;
  }

  async #reap(timeout) {
    if (await within(this.exited, timeout)) return;
    this.#signal('SIGTERM');
    if (await within(this.exited, 2_000)) return;
    this.#signal('SIGKILL');
    await this.exited;
  }

  #signal(name) {
    if (this.#dead === null && this.#child.exitCode === null && this.#child.signalCode === null) {
      try { this.#child.kill(name); } catch { /* already gone */ }
    }
  }

  // --- internals -----------------------------------------------------------------------------------------------

  #start(method, params, { signal, timeout, onEvent, onSettle, closing = false }) {
    const call = { id: this.#nextId++, method, onEvent, onSettle, done: false, error: null, cleanup: [] };
    if (params !== undefined && (params === null || typeof params !== 'object' || Array.isArray(params))) {
      call.error = new TypeError('params must be an object (the protocol passes params by name) or undefined');
    } else if (this.#dead) {
      call.error = this.#dead;
    } else if (this.#closing && !closing) {
      call.error = new WorkerClosedError(`worker ${this.pid} is closed`);
    } else if (signal?.aborted) {
      call.error = signal.reason;
    }
    if (call.error) {
      call.done = true;
      return call;
    }
    this.#pending.set(call.id, call);
    if (signal) {
      const onAbort = () => this.#giveUp(call, signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
      call.cleanup.push(() => signal.removeEventListener('abort', onAbort));
    }
    if (timeout !== undefined && timeout !== null) {
      const timer = setTimeout(() => this.#giveUp(
        call, new TimeoutError(`${method} (id ${call.id}) timed out after ${timeout} ms; the job was cancelled`),
      ), timeout);
      call.cleanup.push(() => clearTimeout(timer));
    }
    this.#write(message(call.id, method, params));
    return call;
  }

  /** Settles a call that is still waiting with `error` and asks the worker to cancel its job. */
  #giveUp(call, error) {
    if (call.done) return;
    this.#abandon(call);
    this.#settle(call, error);
  }

  /** Forgets a call that has no final reply yet and sends `$/cancelRequest` for it (fire and forget). */
  #abandon(call) {
    if (!this.#pending.delete(call.id)) return;
    this.#abandoned.add(call.id);
    if (this.#abandoned.size > 4096) this.#abandoned.delete(this.#abandoned.values().next().value);
    if (this.#dead === null) this.#write(message(undefined, '$/cancelRequest', { id: call.id }));
    this.#cleanup(call);
  }

  /** Delivers a call's outcome, once. */
  #settle(call, error, result) {
    if (call.done) return;
    call.done = true;
    this.#cleanup(call);
    call.onSettle?.(error, result);
  }

  /** Removes the call's abort listener and timer. */
  #cleanup(call) {
    for (const undo of call.cleanup) undo();
    call.cleanup = [];
  }

  #write(line) {
    if (!this.#child.stdin.writable) return; // the 'close' event will report the death
    if (this.#framing === 'content-length') {
      const body = Buffer.from(line.slice(0, -1), 'utf8'); // without the newline
      line = Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`, 'ascii'), body]);
    }
    this.#child.stdin.write(line); // one write per message: messages never interleave
  }

  #onStdout(chunk) {
    if (this.#framing === 'content-length') {
      this.#onFramedStdout(chunk);
      return;
    }
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(NEWLINE, start);
      if (nl === -1) {
        if (start < chunk.length) this.#keepPartial(chunk.subarray(start));
        return;
      }
      let line = chunk.subarray(start, nl);
      start = nl + 1;
      if (this.#skipping) {
        this.#skipping = false;
        continue;
      }
      if (this.#partial.length > 0) {
        line = Buffer.concat([...this.#partial, line]);
        this.#partial = [];
        this.#partialBytes = 0;
      }
      this.#dispatchLine(line);
    }
  }

  /** Content-Length framing: headers, a blank line, then exactly that many bytes. */
  #onFramedStdout(chunk) {
    this.#headerBuffer = this.#headerBuffer.length ? Buffer.concat([this.#headerBuffer, chunk]) : Buffer.from(chunk);
    for (;;) {
      const end = this.#headerBuffer.indexOf('\r\n\r\n');
      if (end === -1) return;
      const headers = this.#headerBuffer.subarray(0, end).toString('ascii');
      const match = /^content-length:\s*(\d+)\s*$/im.exec(headers);
      if (!match) {
        this.#protocolError(`header block without Content-Length: ${headers.slice(0, 200)}`);
        this.#headerBuffer = this.#headerBuffer.subarray(end + 4);
        continue;
      }
      const length = Number(match[1]);
      if (this.#headerBuffer.length < end + 4 + length) return;
      const body = this.#headerBuffer.subarray(end + 4, end + 4 + length);
      this.#headerBuffer = this.#headerBuffer.subarray(end + 4 + length);
      if (length > this.#maxLineBytes) this.#protocolError(`message over ${this.#maxLineBytes} bytes skipped`);
      else this.#dispatchLine(body);
    }
  }

  #keepPartial(piece) {
    if (this.#skipping) return;
    this.#partialBytes += piece.length;
    if (this.#partialBytes > this.#maxLineBytes) {
      this.#protocolError(`line over ${this.#maxLineBytes} bytes skipped`);
      this.#partial = [];
      this.#partialBytes = 0;
      this.#skipping = true;
      return;
    }
    this.#partial.push(Buffer.from(piece)); // a copy: the chunk's memory is reused by the stream
  }

  #dispatchLine(line) {
    const text = line.toString('utf8').trim();
    if (text === '') return;
    let parsed;
    try {
      parsed = JSON.parse(text);
    } catch {
      this.#protocolError(`not JSON: ${text.slice(0, 200)}`);
      return;
    }
    for (const item of Array.isArray(parsed) ? parsed : [parsed]) {
      if (item !== null && typeof item === 'object' && !Array.isArray(item)) this.#dispatch(item);
      else this.#protocolError(`not a JSON-RPC message: ${JSON.stringify(item).slice(0, 200)}`);
    }
  }

  #dispatch(msg) {
    if (typeof msg.method === 'string') {
      if (msg.method === '$/progress' && msg.params !== null && typeof msg.params === 'object') {
        this.#progress(msg.params);
      } else {
        this.emit('notification', msg.method, msg.params);
      }
      return;
    }
    const call = this.#pending.get(msg.id);
    if (call === undefined) {
      if (this.#abandoned.delete(msg.id)) return;
      this.#protocolError(`reply for no pending request: ${JSON.stringify(msg).slice(0, 300)}`);
      return;
    }
    this.#pending.delete(msg.id);
    if ('error' in msg) this.#settle(call, WorkerError.fromWire(msg.error, call.method));
    else if ('result' in msg) this.#settle(call, null, msg.result);
    else this.#settle(call, new ProtocolError(`reply without result or error: ${JSON.stringify(msg).slice(0, 300)}`));
  }

  #progress(params) {
    const call = this.#pending.get(params.id);
    if (call === undefined || call.onEvent === undefined) return;
    let event;
    if (params.kind === 'item') {
      event = params.error !== undefined && params.error !== null
        ? { kind: 'item', index: params.index, error: WorkerError.fromWire(params.error, call.method) }
        : { kind: 'item', index: params.index, result: params.result };
    } else if (params.kind === 'progress') {
      event = { kind: 'progress', done: params.done, total: params.total, message: params.message };
    } else {
      return; // an unknown kind: ignored, for forward compatibility
    }
    try {
      call.onEvent(event);
    } catch (error) {
      this.emit('protocolError', `onProgress callback threw: ${error}`);
    }
  }

  #onStderr(chunk) {
    const lines = (this.#stderrPartial + chunk.toString('utf8')).split('\n');
    this.#stderrPartial = lines.pop();
    for (const line of lines) this.#stderrLine(line.replace(/\r$/, ''));
  }

  #stderrLine(line) {
    this.#stderr.push(line);
    if (this.#stderr.length > this.#stderrLines) this.#stderr.splice(0, this.#stderr.length - this.#stderrLines);
    this.emit('stderr', line);
  }

  #protocolError(text) {
    this.protocolErrors.push(text);
    if (this.protocolErrors.length > 100) this.protocolErrors.shift();
    this.emit('protocolError', text);
  }

  #die(code, signal, startError) {
    if (this.#dead !== null) return;
    if (this.#stderrPartial) {
      this.#stderrLine(this.#stderrPartial);
      this.#stderrPartial = '';
    }
    const how = startError ? `failed to start: ${startError.message}`
      : signal ? `killed by ${signal}` : `exited with status ${code}`;
    this.#dead = new WorkerDiedError(`worker ${this.pid ?? '(not started)'} ${how}${this.#closing ? ' (closed by the client)' : ''}`, {
      pid: this.pid, exitCode: code, signal, stderrTail: this.stderrTail(20),
    });
    if (startError) this.#dead.cause = startError;
    const pending = [...this.#pending.values()];
    this.#pending.clear();
    for (const call of pending) this.#settle(call, this.#dead);
    this.#resolveExited({ code, signal });
    this.emit('exit', code, signal);
  }
}

/** The framings the worker speaks. */
const FRAMINGS = ['ndjson', 'content-length'];

function checkFraming(framing) {
  if (!FRAMINGS.includes(framing)) throw new TypeError(`framing must be one of ${FRAMINGS.join(', ')}, not ${framing}`);
}

function message(id, method, params) {
  const msg = { jsonrpc: '2.0', method };
  if (id !== undefined) msg.id = id;
  if (params !== undefined) msg.params = params;
  return `${JSON.stringify(msg)}\n`;
}

/** True if `promise` settles within `ms`. */
async function within(promise, ms) {
  let timer;
  const timedOut = new Promise((resolve) => { timer = setTimeout(() => resolve(false), ms); });
  try {
    return await Promise.race([promise.then(() => true), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}
