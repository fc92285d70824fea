// Shared helpers: the real binary (PHOTOWORKER_BIN, default <repo>/.build/debug/photoworker) and the fake worker.

import { accessSync, constants, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
export const repo = path.resolve(here, '..', '..', '..');
export const fakeBin = path.join(repo, 'clients', 'testing', 'fake_worker.py');

export function workerBin() {
  const bin = process.env.PHOTOWORKER_BIN || path.join(repo, '.build', 'debug', 'photoworker');
  try {
    accessSync(bin, constants.X_OK);
  } catch {
    throw new Error(`photoworker binary not found at ${bin}: run \`swift build\` or set PHOTOWORKER_BIN`);
  }
  return bin;
}

/** Both executables, for the protocol basics the fake must share with the real worker. */
export const bothBins = () => [['real', workerBin()], ['fake', fakeBin]];

function statFields(pid) {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(')').pop().trim().split(/\s+/);
  } catch {
    return null;
  }
}

/** True while the process runs (a zombie counts as gone). */
export function processExists(pid) {
  const fields = statFields(pid);
  return fields !== null && fields[0] !== 'Z';
}

/** Live (non-zombie) child processes of this process. */
export function children() {
  return readdirSync('/proc').filter((e) => /^\d+$/.test(e)).map(Number).filter((pid) => {
    const fields = statFields(pid);
    return fields !== null && Number(fields[1]) === process.pid && fields[0] !== 'Z';
  });
}

/** Polls the async predicate until it holds; throws after `timeout` ms. */
export async function eventually(check, what = 'condition', timeout = 5000) {
  const deadline = Date.now() + timeout;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export async function jobCount(worker) {
  return (await worker.call('jobs.list')).jobs.length;
}
