// The client in both framings against the real binary: the worker detects how it is spoken to and answers in
// kind, with the same guarantees (streaming, cancellation, typed errors).

import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';

import { InvalidParams, WorkerPool, spawnWorker } from '../index.js';
import { eventually, jobCount, workerBin } from '../support/test-helpers.js';

const photo = fileURLToPath(new URL('../../../corpus/photos/girl-1.jpg', import.meta.url));
const heic = fileURLToPath(new URL('../../../corpus/formats/girl.heic', import.meta.url));

for (const framing of ['ndjson', 'content-length']) {
  describe(`framing ${framing}`, () => {
    test('calls, streams and errors', async () => {
      const w = spawnWorker({ executable: workerBin(), framing });
      try {
        assert.equal(w.framing, framing);
        const palette = await w.call('image.palette', { source: { path: photo }, count: 4 });
        assert.ok(palette.colors.length >= 1 && palette.colors.length <= 4);
        const phone = await w.call('image.info', { source: { path: heic } });
        assert.equal(phone.format, 'heif');
        const heicPalette = await w.call('image.palette', { source: { path: heic }, count: 3 });
        assert.ok(heicPalette.colors.length >= 1 && heicPalette.colors.length <= 3);
        const slept = await Promise.all([30, 0, 10].map((ms) => w.call('diagnostics.sleep', { ms })));
        assert.deepEqual(slept.map((r) => r.slept), [30, 0, 10]);
        const items = [];
        for await (const event of w.stream('diagnostics.fanout', { children: 6, ms: 5 })) {
          if (event.kind === 'item') items.push(event.index);
        }
        assert.deepEqual(items.sort((a, b) => a - b), [0, 1, 2, 3, 4, 5]);
        await assert.rejects(w.call('image.palette', { source: { path: photo }, count: 99 }), InvalidParams);
        assert.deepEqual(w.protocolErrors, []);
      } finally {
        await w.close();
      }
    });

    test('aborting a call cancels the job', async () => {
      const w = spawnWorker({ executable: workerBin(), framing });
      try {
        const controller = new AbortController();
        const call = w.call('diagnostics.sleep', { ms: 60_000 }, { signal: controller.signal });
        await eventually(async () => (await jobCount(w)) === 1, 'the job to start');
        controller.abort();
        await assert.rejects(call, { name: 'AbortError' });
        await eventually(async () => (await jobCount(w)) === 0, 'the job to go');
        assert.equal((await w.call('worker.stats')).cancelled, 1);
      } finally {
        await w.close();
      }
    });
  });
}

test('a pool passes the framing to its workers', async () => {
  const pool = new WorkerPool({ size: 2, executable: workerBin(), framing: 'content-length' });
  try {
    const results = await Promise.all([1, 2, 3, 4].map(() => pool.call('ping')));
    assert.deepEqual(results, [{}, {}, {}, {}]);
  } finally {
    await pool.close();
  }
});

test('an unknown framing is refused', () => {
  assert.throws(() => spawnWorker({ executable: workerBin(), framing: 'xml' }), TypeError);
});
