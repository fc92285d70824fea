// Drives the worker installed from the npm tarball, as a user of the package would: run by scripts/test-package.sh
// from the folder the tarball was installed into, outside the repository, with the checkout, the build folder and the
// Swift toolchain hidden. Prints what each check saw; the first failure ends the run with status 1.
//
// Usage: node check_installed.mjs PHOTOS_DIR EXPECTED_VERSION

import { execFileSync } from 'node:child_process';
import path from 'node:path';
import process from 'node:process';

import { spawnWorker, defaultExecutable } from 'photoworker';

const [photos, expectedVersion] = process.argv.slice(2);

function check(ok, what, actual) {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}: ${typeof actual === 'string' ? actual : JSON.stringify(actual)}`);
  if (!ok) process.exit(1);
}

const exe = defaultExecutable();
check(exe.startsWith(path.resolve('node_modules/photoworker/vendor/')), 'spawnWorker() finds the bundled worker', exe);

// The package's bin entry, as `npx photoworker` runs it.
const version = execFileSync(path.resolve('node_modules/.bin/photoworker'), ['--version'], { encoding: 'utf8' }).trim();
check(version === expectedVersion, 'node_modules/.bin/photoworker --version', version);

const worker = spawnWorker();
try {
  const info = await worker.call('initialize', {}, { timeout: 30_000 });
  check(info.serverInfo.version === expectedVersion, 'initialize serverInfo.version', info.serverInfo.version);
  const palette = await worker.call('image.palette', { source: { path: path.join(photos, 'animal-3.jpg') }, count: 4 },
    { timeout: 120_000 });
  check(palette.colors.length === 4, 'image.palette', palette.colors.map((c) => c.hex));
} finally {
  await worker.close();
}
console.log('installed npm package: all checks passed');
