// Typed errors: WorkerError (a JSON-RPC error reply, one subclass per code) and the client's own failures.

/** The wire error codes of protocol/README.md. */
export const ErrorCode = Object.freeze({
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603,
  REQUEST_CANCELLED: -32800,
  SERVER_CANCELLED: -32802,
  OVERLOADED: -32000,
  SOURCE_NOT_FOUND: -32001,
  INVALID_IMAGE: -32002,
  IMAGE_TOO_LARGE: -32003,
  FETCH_FAILED: -32004,
  OUTPUT_FAILED: -32005,
  OVER_MEMORY_BUDGET: -32007,
});

/**
 * A JSON-RPC error reply: `code`, `message` (the wire message), `data` (an object saying what and where) and the
 * `method` called. `WorkerError.fromWire` returns the subclass for the code (`InvalidParams`, `SourceNotFound`...).
 */
export class WorkerError extends Error {
  /**
   * `message` is the wire message with what `data` says of where and why (`invalid params: output.format: must be
   * one of "png", "jpeg", "webp"; got "gif"`), so an uncaught error's stack tells the whole story; the wire's own
   * words stay in `wireMessage`.
   */
  constructor(code, message, data, method) {
    super(WorkerError.describe(message, data));
    this.name = 'WorkerError';
    this.code = code;
    this.wireMessage = message;
    this.data = data;
    this.method = method;
  }

  /** `message`, then `data.path` and the first of `data.reason` / `data.detail` when the worker sent them. */
  static describe(message, data) {
    if (data === null || typeof data !== 'object') return message;
    const where = typeof data.path === 'string' ? `: ${data.path}` : '';
    const why = [data.reason, data.detail].find((v) => typeof v === 'string');
    return `${message}${where}${why !== undefined ? `: ${why}` : ''}`;
  }

  toString() {
    const where = this.method ? ` (${this.method})` : '';
    const data = this.data !== undefined ? `: ${JSON.stringify(this.data)}` : '';
    return `${this.name} [${this.code}] ${this.wireMessage}${where}${data}`;
  }

  /** Builds the subclass registered for the error object's code. */
  static fromWire(error, method) {
    if (error === null || typeof error !== 'object' || !Number.isInteger(error.code)) {
      return new ProtocolError(`malformed error object: ${JSON.stringify(error)}`);
    }
    const Subclass = byCode.get(error.code) ?? WorkerError;
    return new Subclass(error.code, typeof error.message === 'string' ? error.message : '', error.data, method);
  }
}

const byCode = new Map();
function subclass(name, code) {
  const cls = { [name]: class extends WorkerError {
    constructor(...args) { super(...args); this.name = name; }
  } }[name];
  byCode.set(code, cls);
  return cls;
}

export const ParseError = subclass('ParseError', ErrorCode.PARSE_ERROR);
export const InvalidRequest = subclass('InvalidRequest', ErrorCode.INVALID_REQUEST);
export const MethodNotFound = subclass('MethodNotFound', ErrorCode.METHOD_NOT_FOUND);
/** `data` is {path: "a.b[0]", reason}. */
export const InvalidParams = subclass('InvalidParams', ErrorCode.INVALID_PARAMS);
export const InternalError = subclass('InternalError', ErrorCode.INTERNAL_ERROR);
export const RequestCancelled = subclass('RequestCancelled', ErrorCode.REQUEST_CANCELLED);
/** The worker cancelled the job itself: drain timeout, shutdown or a signal. */
export const ServerCancelled = subclass('ServerCancelled', ErrorCode.SERVER_CANCELLED);
/** The worker's queue is full; retrying later may succeed. */
export const Overloaded = subclass('Overloaded', ErrorCode.OVERLOADED);
export const SourceNotFound = subclass('SourceNotFound', ErrorCode.SOURCE_NOT_FOUND);
export const InvalidImage = subclass('InvalidImage', ErrorCode.INVALID_IMAGE);
export const ImageTooLarge = subclass('ImageTooLarge', ErrorCode.IMAGE_TOO_LARGE);
/** `data.status` is the HTTP status when there was one. */
export const FetchFailed = subclass('FetchFailed', ErrorCode.FETCH_FAILED);
export const OutputFailed = subclass('OutputFailed', ErrorCode.OUTPUT_FAILED);
/**
 * The job's estimated peak memory alone is more than the worker may use (`--max-memory`, `maxMemory`), so it could
 * never start; the same job on the same worker fails again. `data` is {reason, neededBytes, budgetBytes}.
 */
export const OverMemoryBudget = subclass('OverMemoryBudget', ErrorCode.OVER_MEMORY_BUDGET);

/** The worker sent something the client cannot interpret. */
export class ProtocolError extends WorkerError {
  constructor(message) {
    super(ErrorCode.INTERNAL_ERROR, message);
    this.name = 'ProtocolError';
  }
}

/**
 * The worker process ended (or its pipes broke) with the call in flight, or before it was sent.
 * `exitCode`/`signal` say how; `stderrTail` holds the worker's last stderr lines, which usually say why.
 */
export class WorkerDiedError extends Error {
  constructor(message, { pid, exitCode = null, signal = null, stderrTail = '' } = {}) {
    super(stderrTail ? `${message}\n--- worker stderr (tail) ---\n${stderrTail}` : message);
    this.name = 'WorkerDiedError';
    this.pid = pid;
    this.exitCode = exitCode;
    this.signal = signal;
    this.stderrTail = stderrTail;
  }
}

/** The worker (or pool) was closed by this client; no new calls are accepted. */
export class WorkerClosedError extends Error {
  constructor(message = 'worker is closed') {
    super(message);
    this.name = 'WorkerClosedError';
  }
}

/** A call's `timeout` elapsed; the job was cancelled in the worker. */
export class TimeoutError extends Error {
  constructor(message) {
    super(message);
    this.name = 'TimeoutError';
  }
}
