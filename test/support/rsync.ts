// Puts the rsync subset (rsync-subset.mjs) on a PATH folder as `rsync`, for gitlab-ci-local.
// It is used whether or not the machine has rsync, so every machine runs the same copy.
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const script = fileURLToPath(new URL('./rsync-subset.mjs', import.meta.url));

export function installRsyncSubset(folder: string): void {
  mkdirSync(folder, { recursive: true });
  const file = path.join(folder, 'rsync');
  writeFileSync(file, `#!/bin/sh\nexec "${process.execPath}" "${script}" "$@"\n`);
  chmodSync(file, 0o755);
}
