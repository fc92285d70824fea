#!/usr/bin/env node
// `npx photoworker ...`: runs the worker bundled in this package with the same arguments and stdio.
//
// Node cannot replace its own process (no exec), so it stays as a thin parent: the worker inherits stdin, stdout and
// stderr (the JSON-RPC stream never passes through Node), signals sent to this process are passed on, and this
// process exits with the worker's status, or re-raises the signal that ended it, so a host sees the worker's outcome.
// If this parent is killed outright (SIGKILL), the worker keeps the host's pipes: it ends when the host closes its
// stdin (EOF), as it would without this launcher, so it is not left behind once the host is gone.

import { spawn } from 'node:child_process';
import os from 'node:os';
import process from 'node:process';

import { bundledExecutable } from '../src/bundled.js';

const exe = bundledExecutable();
if (exe === null) {
  process.stderr.write('photoworker: this installation carries no worker (expected vendor/photoworker)\n');
  process.exit(127);
}
const child = spawn(exe, process.argv.slice(2), { stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => child.kill(signal));
}
child.on('error', (error) => {
  process.stderr.write(`photoworker: cannot start ${exe}: ${error.message}\n`);
  process.exit(127);
});
child.on('exit', (code, signal) => {
  if (signal !== null) {
    process.removeAllListeners(signal);
    // Node ignores some signals itself (SIGPIPE): then the re-raise does nothing and the shell's convention for a
    // process ended by that signal, 128 + its number, is the status instead.
    process.exitCode = 128 + (os.constants.signals[signal] ?? 0);
    process.kill(process.pid, signal);
  } else {
    process.exit(code ?? 1);
  }
});
