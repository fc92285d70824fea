// WorkerPool against the real binary: spreading, restart after a death, closing without orphans.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { WorkerClosedError, WorkerDiedError, createPool } from '../index.js';
import { children, eventually, jobCount, processExists, workerBin } from '../support/test-helpers.js';

const replaced = (pool, oldPid) => async () => pool.workers.every((w) => w?.alive && w.pid !== oldPid);

test('calls are spread over the workers', async () => {
  const pool = createPool({ size: 3, executable: workerBin() });
  try {
    assert.equal(new Set(pool.workers.map((w) => w.pid)).size, 3);
    const calls = Array.from({ length: 6 }, () => pool.call('diagnostics.sleep', { ms: 300 }));
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(pool.workers.map((w) => w.inFlight), [2, 2, 2]);
    assert.deepEqual((await Promise.all(calls)).map((r) => r.slept), [300, 300, 300, 300, 300, 300]);
  } finally {
    await pool.close();
  }
});

test("a dead worker's calls fail and it is replaced", async () => {
  const pool = createPool({ size: 2, executable: workerBin() });
  try {
    const [victim, survivor] = pool.workers;
    const outcomes = Promise.allSettled(Array.from({ length: 4 }, () => pool.call('diagnostics.sleep', { ms: 1500 })));
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(victim.inFlight, 2);
    assert.equal(survivor.inFlight, 2);
    await eventually(async () => (await jobCount(victim)) === 2, "the victim's jobs to start");
    process.kill(victim.pid, 'SIGKILL');

    const settled = await outcomes;
    const died = settled.filter((o) => o.status === 'rejected').map((o) => o.reason);
    assert.equal(died.length, 2);
    assert.ok(died.every((e) => e instanceof WorkerDiedError && e.pid === victim.pid && e.signal === 'SIGKILL'));
    assert.deepEqual(settled.filter((o) => o.status === 'fulfilled').map((o) => o.value), [{ slept: 1500 }, { slept: 1500 }]);

    await eventually(replaced(pool, victim.pid), 'a replacement worker');
    assert.equal(pool.restarts, 1);
    assert.equal(processExists(victim.pid), false);
    assert.deepEqual(await Promise.all([1, 2, 3, 4].map(() => pool.call('ping'))), [{}, {}, {}, {}]);
  } finally {
    await pool.close();
  }
});

test('pool streams', async () => {
  const pool = createPool({ size: 2, executable: workerBin() });
  try {
    const events = [];
    for await (const event of pool.stream('diagnostics.fanout', { children: 4, ms: 0 })) events.push(event);
    assert.deepEqual(events.filter((e) => e.kind === 'item').map((e) => e.index).sort(), [0, 1, 2, 3]);
    assert.deepEqual(events.at(-1), { kind: 'result', value: { children: 4 } });
  } finally {
    await pool.close();
  }
});

test('close ends every child, including replacements', async () => {
  const before = new Set(children());
  const pool = createPool({ size: 3, executable: workerBin() });
  await Promise.all(pool.workers.map((w) => w.ping()));
  const first = pool.workers[0];
  process.kill(first.pid, 'SIGKILL');
  await eventually(replaced(pool, first.pid), 'a replacement worker');
  const pids = pool.workers.map((w) => w.pid);
  assert.deepEqual(children().filter((pid) => !before.has(pid)).sort(), [...pids].sort());
  await pool.close();
  assert.deepEqual(children().filter((pid) => !before.has(pid)), []);
  assert.ok(pids.every((pid) => !processExists(pid)));
  await assert.rejects(pool.call('ping'), WorkerClosedError);
});

test('close while a restart is pending leaves no orphan', async () => {
  const before = new Set(children());
  const pool = createPool({ size: 1, executable: workerBin() });
  const [only] = pool.workers;
  process.kill(only.pid, 'SIGKILL');
  await only.exited;
  await pool.close();
  await new Promise((resolve) => setTimeout(resolve, 100)); // a restart timer would have fired by now
  assert.deepEqual(children().filter((pid) => !before.has(pid)), []);
});

test('a pool whose workers cannot start gives up with WorkerDiedError', async () => {
  const pool = createPool({ size: 2, executable: '/nonexistent/photoworker', maxQuickDeaths: 2 });
  try {
    await assert.rejects(pool.call('ping'), WorkerDiedError);
    await eventually(async () => pool.workers.every((w) => w === null), 'both slots to give up');
    await assert.rejects(pool.call('ping'), /no live worker/);
  } finally {
    await pool.close();
  }
});

test('leaving a pool stream early cancels the job', async () => {
  const pool = createPool({ size: 1, executable: workerBin() });
  try {
    for await (const event of pool.stream('diagnostics.fanout', { children: 50, ms: 10_000 })) {
      assert.equal(event.kind, 'item');
      break;
    }
    await eventually(async () => (await jobCount(pool.workers[0])) === 0, "the abandoned stream's job to be cancelled");
  } finally {
    await pool.close();
  }
});

test('maxMemory goes to every worker of the pool, replacements too', async () => {
  const pool = createPool({ size: 2, executable: workerBin(), maxMemory: '1G' });
  const origins = async () => Promise.all(pool.workers.map(async (w) => (await w.initialize()).limits.maxMemoryOrigin));
  try {
    for (const origin of await origins()) assert.ok(origin.startsWith('--max-memory 1 GiB'), origin);
    const first = pool.workers[0];
    process.kill(first.pid, 'SIGKILL');
    await eventually(replaced(pool, first.pid), 'a replacement worker');
    for (const origin of await origins()) assert.ok(origin.startsWith('--max-memory 1 GiB'), origin);
  } finally {
    await pool.close();
  }
});

test('a bad maxMemory fails the pool at once, with no child left', () => {
  const before = new Set(children());
  assert.throws(() => createPool({ size: 2, executable: workerBin(), maxMemory: 0 }), RangeError);
  assert.deepEqual(children().filter((pid) => !before.has(pid)), []);
});
