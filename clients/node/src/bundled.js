// The worker that ships inside the `photoworker` npm package (scripts/package.sh): binary, C libraries and resource
// bundles in vendor/ at the package's root. The plain client (clients/node) has no vendor/ folder, so
// bundledExecutable() is null there and the client falls back to $PHOTOWORKER_BIN or PATH.

import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const WORKER = fileURLToPath(new URL('../vendor/photoworker', import.meta.url));

/** The worker installed with this package, or null when the package carries none. */
export function bundledExecutable() {
  return existsSync(WORKER) ? WORKER : null;
}
