// Worker against the real binary (and, for the protocol basics, the fake worker too, to keep it honest).

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import {
  ErrorCode, InvalidParams, MethodNotFound, OverMemoryBudget, ServerCancelled, SourceNotFound, TimeoutError,
  WorkerClosedError, WorkerDiedError, spawnWorker,
} from '../index.js';
import {
  bothBins, children, eventually, fakeBin, jobCount, processExists, repo, workerBin,
} from '../support/test-helpers.js';

for (const [kind, executable] of bothBins()) {
  describe(`Worker (${kind})`, () => {
    test('initialize and ping', async () => {
      const w = spawnWorker({ executable });
      try {
        const info = await w.initialize();
        const names = new Set(info.methods.map((m) => m.name));
        for (const name of ['ping', 'jobs.list', 'jobs.cancel', 'worker.stats', 'diagnostics.sleep']) {
          assert.ok(names.has(name), name);
        }
        assert.deepEqual(await w.ping(), {});
      } finally {
        await w.close();
      }
    });

    test('many calls in flight each get their own reply', async () => {
      const w = spawnWorker({ executable });
      try {
        const durations = Array.from({ length: 200 }, (_, i) => (i * 37) % 100);
        const start = Date.now();
        const results = await Promise.all(durations.map((ms) => w.call('diagnostics.sleep', { ms })));
        assert.deepEqual(results.map((r) => r.slept), durations);
        assert.ok(Date.now() - start < 5000, 'the sleeps overlap');
        assert.equal(w.inFlight, 0);
      } finally {
        await w.close();
      }
    });

    test('replies come in completion order', async () => {
      const w = spawnWorker({ executable });
      try {
        const order = [];
        await Promise.all([400, 1].map(async (ms) => {
          await w.call('diagnostics.sleep', { ms });
          order.push(ms);
        }));
        assert.deepEqual(order, [1, 400]);
      } finally {
        await w.close();
      }
    });

    test('stream yields every item, then the result', async () => {
      const w = spawnWorker({ executable });
      try {
        const events = [];
        for await (const event of w.stream('diagnostics.fanout', { children: 20, ms: 50 })) events.push(event);
        const items = events.filter((e) => e.kind === 'item');
        assert.deepEqual(items.map((e) => e.index).sort((a, b) => a - b), [...Array(20).keys()]);
        assert.ok(items.every((e) => e.result.child === e.index));
        assert.deepEqual(events.at(-1), { kind: 'result', value: { children: 20 } });
        assert.equal(events.filter((e) => e.kind === 'result').length, 1);
      } finally {
        await w.close();
      }
    });

    test('errors are typed', async () => {
      const w = spawnWorker({ executable });
      try {
        await assert.rejects(w.call('no.such.method'), (error) => {
          assert.ok(error instanceof MethodNotFound);
          assert.equal(error.code, ErrorCode.METHOD_NOT_FOUND);
          assert.deepEqual(error.data, { method: 'no.such.method' });
          return true;
        });
        await assert.rejects(w.call('diagnostics.sleep', { ms: -5 }), (error) => {
          assert.ok(error instanceof InvalidParams);
          assert.equal(error.data.path, 'ms');
          // The message carries where and why, as Python's str(error) does; the wire's words stay apart.
          assert.equal(error.message, `${error.wireMessage}: ms: ${error.data.reason}`);
          return true;
        });
        assert.deepEqual(await w.ping(), {});
      } finally {
        await w.close();
      }
    });

    test('an AbortSignal cancels the job', async () => {
      const w = spawnWorker({ executable });
      try {
        const controller = new AbortController();
        const call = assert.rejects(
          w.call('diagnostics.spin', { ms: 20_000 }, { signal: controller.signal }), { name: 'AbortError' },
        );
        // Wait for "running": a compute job cancelled while it is still queued is a different path.
        await eventually(async () => (await w.call('jobs.list')).jobs[0]?.state === 'running', 'the spin job to run');
        controller.abort();
        await call;
        await eventually(async () => (await jobCount(w)) === 0, 'the job to go after $/cancelRequest');
        assert.equal((await w.call('worker.stats')).cancelled, 1);
        assert.equal(w.inFlight, 0);
      } finally {
        await w.close();
      }
    });

    test('an already aborted signal sends nothing', async () => {
      const w = spawnWorker({ executable });
      try {
        await assert.rejects(w.call('ping', undefined, { signal: AbortSignal.abort() }), { name: 'AbortError' });
        assert.equal(w.inFlight, 0);
        assert.equal((await w.call('worker.stats')).received, 1);
      } finally {
        await w.close();
      }
    });

    test('a timeout rejects and cancels the job', async () => {
      const w = spawnWorker({ executable });
      try {
        const start = Date.now();
        await assert.rejects(w.call('diagnostics.sleep', { ms: 20_000 }, { timeout: 200 }), TimeoutError);
        assert.ok(Date.now() - start < 2000);
        await eventually(async () => (await jobCount(w)) === 0, 'the timed-out job to be cancelled');
        assert.equal((await w.call('worker.stats')).cancelled, 1);
      } finally {
        await w.close();
      }
    });

    test('leaving a stream early cancels the job', async () => {
      const w = spawnWorker({ executable });
      try {
        for await (const event of w.stream('diagnostics.fanout', { children: 50, ms: 10_000 })) {
          assert.equal(event.kind, 'item');
          break;
        }
        await eventually(async () => (await jobCount(w)) === 0, "the abandoned stream's job to be cancelled");
      } finally {
        await w.close();
      }
    });

    test('a stream throws the final error', async () => {
      const w = spawnWorker({ executable });
      try {
        await assert.rejects(async () => {
          for await (const event of w.stream('diagnostics.fanout', { children: -1, ms: 0 })) assert.fail(String(event));
        }, InvalidParams);
      } finally {
        await w.close();
      }
    });

    test('a killed worker fails in-flight and later calls', async () => {
      const w = spawnWorker({ executable });
      try {
        const outcomes = Promise.allSettled([1, 2, 3].map(() => w.call('diagnostics.sleep', { ms: 20_000 })));
        await eventually(async () => (await jobCount(w)) === 3, 'jobs in flight');
        process.kill(w.pid, 'SIGKILL');
        for (const outcome of await outcomes) {
          assert.equal(outcome.status, 'rejected');
          assert.ok(outcome.reason instanceof WorkerDiedError);
          assert.equal(outcome.reason.signal, 'SIGKILL');
          assert.equal(outcome.reason.pid, w.pid);
        }
        assert.equal(w.alive, false);
        await assert.rejects(w.ping(), WorkerDiedError);
      } finally {
        await w.close();
      }
      assert.equal(processExists(w.pid), false);
    });

    test('close lets in-flight calls finish and exits 0', async () => {
      const w = spawnWorker({ executable });
      const pending = w.call('diagnostics.sleep', { ms: 300 });
      await eventually(async () => (await jobCount(w)) === 1, 'the job to start');
      assert.equal(await w.close(), 0);
      assert.equal((await pending).slept, 300);
      assert.equal(processExists(w.pid), false);
      await assert.rejects(w.ping(), (error) => error instanceof WorkerClosedError || error instanceof WorkerDiedError);
    });

    test('terminate answers in-flight jobs with -32802', async () => {
      const w = spawnWorker({ executable });
      const outcome = assert.rejects(
        w.call('diagnostics.sleep', { ms: 20_000 }),
        (error) => error instanceof ServerCancelled && error.code === -32802,
      );
      await eventually(async () => (await jobCount(w)) === 1, 'the job to start');
      await w.terminate();
      await outcome;
      assert.equal(processExists(w.pid), false);
    });

    test('no child processes remain', async () => {
      const before = new Set(children());
      const workers = [1, 2, 3].map(() => spawnWorker({ executable }));
      await Promise.all(workers.map((w) => w.ping()));
      assert.equal(children().filter((pid) => !before.has(pid)).length, 3);
      await Promise.all(workers.map((w) => w.close()));
      assert.deepEqual(children().filter((pid) => !before.has(pid)), []);
    });
  });
}

describe('Worker (real only)', () => {
  test('image errors are typed', async () => {
    const w = spawnWorker({ executable: workerBin() });
    try {
      await assert.rejects(w.call('image.info', { source: { path: '/nonexistent/missing.png' } }), (error) => {
        assert.ok(error instanceof SourceNotFound);
        assert.equal(error.code, -32001);
        assert.match(error.data.source, /missing\.png/);
        return true;
      });
      // An enum value the worker lacks: the message names the field and the values it has.
      await assert.rejects(w.call('image.thumbnail', { source: { path: 'x.jpg' }, size: 64, fit: 'fill', output: { path: 'x.png' } }), (error) => {
        assert.ok(error instanceof InvalidParams);
        assert.equal(error.message, 'invalid params: fit: must be one of "contain", "cover"; got "fill"');
        assert.equal(error.wireMessage, 'invalid params');
        return true;
      });
    } finally {
      await w.close();
    }
  });

  test('stderr is drained and kept', async () => {
    const lines = [];
    const w = spawnWorker({ executable: workerBin(), args: ['--log-level', 'trace'] });
    w.on('stderr', (line) => lines.push(line));
    await w.ping();
    await w.close();
    assert.ok(lines.length > 0, 'expected the worker to log at trace level');
    assert.equal(w.stderrTail(1), lines.at(-1));
  });

  test('maxMemory becomes the worker\'s budget', async () => {
    // What the worker says it chose is the proof the flag arrived: its budget is the value less what it holds itself.
    for (const [maxMemory, said] of [['1.5G', '--max-memory 1.5 GiB'], [768 * 2 ** 20, '--max-memory 768 MiB'],
      ['60%', '60% of ']]) {
      const w = spawnWorker({ executable: workerBin(), maxMemory });
      try {
        const { limits } = await w.initialize();
        assert.ok(limits.maxMemoryOrigin.startsWith(said), JSON.stringify(limits));
        assert.ok(limits.maxMemoryBytes > 0, JSON.stringify(limits));
        const { memory } = await w.call('worker.stats');
        assert.equal(memory.origin, limits.maxMemoryOrigin);
      } finally {
        await w.close();
      }
    }
    const off = spawnWorker({ executable: workerBin(), maxMemory: 'off' });
    try {
      assert.equal((await off.initialize()).limits.maxMemoryBytes, undefined);
    } finally {
      await off.close();
    }
  });

  test('a job over the memory budget rejects with OverMemoryBudget', async () => {
    // 1 MiB is less than the worker holds itself: the budget left for jobs is 0, which no decoding job fits.
    const w = spawnWorker({ executable: workerBin(), maxMemory: '1M' });
    try {
      const photo = path.join(repo, 'corpus', 'photos', 'girl-1.jpg');
      await assert.rejects(w.call('image.palette', { source: { path: photo } }, { timeout: 20_000 }), (error) => {
        assert.ok(error instanceof OverMemoryBudget);
        assert.equal(error.code, ErrorCode.OVER_MEMORY_BUDGET);
        assert.equal(error.code, -32007);
        assert.ok(error.data.neededBytes > error.data.budgetBytes, JSON.stringify(error.data));
        return true;
      });
      assert.deepEqual(await w.ping(), {}, 'the refusal is the job\'s, not the worker\'s');
    } finally {
      await w.close();
    }
  });

  test('a bad maxMemory throws before spawning', () => {
    const before = new Set(children());
    for (const [maxMemory, args, error] of [
      [0, [], RangeError], [-1, [], RangeError], [1.5, [], RangeError], ['  ', [], RangeError],
      [true, [], TypeError], [1n, [], TypeError],
      ['1G', ['--max-memory', '2G'], /not both/], ['1G', ['--max-memory=2G'], /not both/],
    ]) {
      assert.throws(() => spawnWorker({ executable: fakeBin, args, maxMemory }), error, String(maxMemory));
    }
    assert.deepEqual(children().filter((pid) => !before.has(pid)), []);
  });

  test('a Live Photo: its clip cut with motion, what changed in warnings, a still alone told how to pass its clip', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pw-live-'));
    const still = path.join(dir, 'IMG_0001.HEIC');
    const clip = path.join(dir, 'IMG_0001.MOV');
    fs.copyFileSync(path.join(repo, 'corpus', 'formats', 'girl.heic'), still);
    fs.copyFileSync(path.join(repo, 'corpus', 'motion', 'zoom-hevc-rot90.mov'), clip);
    const w = spawnWorker({ executable: workerBin() });
    try {
      const r = await w.call('image.animatedSticker', {
        source: { path: still }, motion: { path: clip }, output: { path: path.join(dir, 'a.webp') }, size: 128,
        keyFrameInterval: 10,
      });
      assert.ok(r.frames > 1, JSON.stringify(r));
      assert.ok(r.warnings.some((x) => x.startsWith('the 64x96 source was scaled up 1.3x to 128 px')), JSON.stringify(r.warnings));
      await assert.rejects(w.call('image.animatedSticker', { source: { path: still }, output: { path: path.join(dir, 'b.webp') } }),
        (error) => error instanceof InvalidParams && error.data.path === 'source' && error.data.reason.includes('IMG_0001.MOV'));
      const batch = await w.call('photos.process', {
        sources: [{ path: still }], output: { dir: path.join(dir, 'out') }, animated: { size: 64, keyFrameInterval: 10 },
      });
      assert.equal(batch.completed, 1, JSON.stringify(batch));
      assert.ok(batch.paired[0].found && batch.paired[0].motion.endsWith('IMG_0001.MOV'), JSON.stringify(batch));
    } finally {
      await w.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a missing executable fails the first call', async () => {
    const w = spawnWorker({ executable: '/nonexistent/photoworker' });
    await assert.rejects(w.ping(), (error) => error instanceof WorkerDiedError && /ENOENT/.test(error.message));
    await w.close();
  });
});
