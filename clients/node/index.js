// photoworker client for Node 20+: spawn a worker, call methods, stream events, cancel with AbortSignal.
//
//   import { spawnWorker } from './index.js';
//   const w = spawnWorker({ executable: 'photoworker' });
//   const info = await w.call('image.info', { source: { path: 'cat.jpg' } }, { timeout: 10_000 });
//   await w.close();

export { Worker, spawnWorker, defaultExecutable, DEFAULT_MAX_LINE_BYTES } from './src/worker.js';
export { WorkerPool, createPool } from './src/pool.js';
export {
  ErrorCode, WorkerError, ProtocolError, WorkerDiedError, WorkerClosedError, TimeoutError,
  ParseError, InvalidRequest, MethodNotFound, InvalidParams, InternalError, RequestCancelled, ServerCancelled,
  Overloaded, SourceNotFound, InvalidImage, ImageTooLarge, FetchFailed, OutputFailed, OverMemoryBudget,
} from './src/errors.js';
