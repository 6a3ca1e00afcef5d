// What each account of a rollout is rolled out with, as a digest: the text of every manifest file
// its paths name (found as `-f` finds them) and its values. A rollout records them when it starts;
// `--resume` compares, so a wave passed by one version never lets another version through.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { listManifestFiles } from '../manifest/files.js';
import { ProblemList } from '../manifest/problems.js';
import type { AccountSpec } from '../manifest/accounts-file.js';
import { stableJson } from '../util/stable-json.js';

/** Per account name, the digest of its manifests and values. */
export async function rolloutInputs(accounts: readonly AccountSpec[], cwd: string): Promise<Record<string, string>> {
  const digests: Record<string, string> = {};
  for (const account of accounts) digests[account.name] = await accountDigest(account, cwd);
  return digests;
}

async function accountDigest(account: AccountSpec, cwd: string): Promise<string> {
  const hash = createHash('sha256');
  const problems = new ProblemList();
  for (const file of await listManifestFiles(account.manifests, cwd, problems)) {
    hash.update(`file ${file}\n`);
    // A file that cannot be read now is part of the digest as such: the apply will say why.
    hash.update(await readFile(file).catch((error: NodeJS.ErrnoException) => `unreadable: ${error.code ?? 'error'}`));
    hash.update('\n');
  }
  for (const problem of problems.sorted([])) hash.update(`problem ${problem.message}\n`);
  // Where a value was given does not change what is applied; the value does.
  const values = [...(account.values ?? new Map()).entries()]
    .map(([name, given]) => [name, given.value])
    .sort(([a], [b]) => (String(a) < String(b) ? -1 : 1));
  hash.update(`values ${stableJson(values)}\n`);
  return hash.digest('hex');
}
