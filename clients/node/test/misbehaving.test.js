// What the client does when the worker misbehaves: crashes, garbage on stdout, floods stderr, answers late.
// These need the fake worker, which can be told to misbehave on demand.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { TimeoutError, WorkerDiedError, spawnWorker } from '../index.js';
import { fakeBin, sleep } from '../support/test-helpers.js';

test('a crash fails the calls with the exit status and stderr', async () => {
  const w = spawnWorker({ executable: fakeBin });
  try {
    await w.call('test.stderr', { lines: 1, text: 'about to crash' });
    const other = assert.rejects(w.call('diagnostics.sleep', { ms: 10_000 }), WorkerDiedError);
    await assert.rejects(w.call('test.crash', { code: 7 }), (error) => {
      assert.ok(error instanceof WorkerDiedError);
      assert.equal(error.exitCode, 7);
      assert.match(error.stderrTail, /about to crash 0/);
      assert.match(error.message, /exited with status 7/);
      return true;
    });
    await other;
  } finally {
    await w.close();
  }
});

test('garbage on stdout is recorded and skipped', async () => {
  const w = spawnWorker({ executable: fakeBin });
  try {
    assert.deepEqual(await w.call('test.garbage'), {});
    assert.deepEqual(await w.ping(), {});
    assert.equal(w.protocolErrors.length, 1);
    assert.match(w.protocolErrors[0], /not JSON/);
  } finally {
    await w.close();
  }
});

test('a stderr flood never blocks the worker', async () => {
  // 4 MB of stderr, far beyond a pipe buffer: the worker would block forever if nobody drained it.
  const w = spawnWorker({ executable: fakeBin, stderrLines: 100 });
  try {
    await w.call('test.stderr', { lines: 40_000, text: 'x'.repeat(100) }, { timeout: 20_000 });
    assert.equal(w.stderrTail(1), `${'x'.repeat(100)} 39999`);
    assert.equal(w.stderrTail().split('\n').length, 100);
  } finally {
    await w.close();
  }
});

test('a late reply after a timeout is dropped quietly', async () => {
  const w = spawnWorker({ executable: fakeBin });
  try {
    await assert.rejects(w.call('test.ignoreCancel', { ms: 200 }, { timeout: 50 }), TimeoutError);
    await sleep(400); // the fake ignores the cancel and answers after 200 ms; nothing listens
    assert.deepEqual(await w.ping(), {});
    assert.deepEqual(w.protocolErrors, []);
  } finally {
    await w.close();
  }
});

test('progress events reach onProgress', async () => {
  const w = spawnWorker({ executable: fakeBin });
  try {
    const seen = [];
    assert.deepEqual(await w.call('test.ignoreCancel', { ms: 1 }, { onProgress: (e) => seen.push(e) }), { ignored: true });
    assert.deepEqual(seen, [{ kind: 'progress', done: 1, total: 1, message: undefined }]);
  } finally {
    await w.close();
  }
});

test('params must be by name', async () => {
  const w = spawnWorker({ executable: fakeBin });
  try {
    await assert.rejects(w.call('ping', [1, 2]), TypeError);
    assert.equal(w.inFlight, 0);
  } finally {
    await w.close();
  }
});
