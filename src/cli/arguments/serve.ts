// `telform serve`'s flag rules: one account of -f, or the accounts of an accounts file (chosen with
// --only and --shard; which of them exist is the account selection's business, in run/); with
// --queue, replicas share the accounts through a PostgreSQL queue, which --shard would split again.
import type { Shard } from '../../util/shard.js';
import type { ValuesOptionValues } from '../values-options.js';
import { Problems, type Parsed } from './parsed.js';
import { checkManifestSource, checkValues } from './shared.js';

/** The repeatable flags have no default (so --help shows none): absent means none given. */
export interface ServeFlags extends ValuesOptionValues {
  file?: string[];
  accounts?: string;
  only?: string[];
  /** `--policy FILE` (repeatable): evaluated for every account, after the accounts file's own policies. */
  policy?: string[];
  shard?: Shard;
  name: string;
  interval: number;
  jitter: number;
  accountParallelism: number;
  parallelism: number;
  apply: 'never' | 'safe';
  listen: { host: string; port: number };
  publicUrl?: string;
  notify?: string;
  drainTimeout: number;
  /** `--queue postgres://…`, or `state` for the state's own PostgreSQL database. */
  queue?: string;
  /** `--replica NAME`: this replica's name in the log, events, metrics and the queue. */
  replica?: string;
  checkExpiry: number;
  applyExpiry: number;
  callbackWindow: number;
}

/** The flags with every repeatable one as a list. */
export type ServeFlagValues = ServeFlags & { file: string[]; only: string[]; policy: string[] };

export type ServeInput =
  | { mode: 'accounts'; accountsFile: string; flags: ServeFlagValues }
  | { mode: 'one'; paths: string[]; flags: ServeFlagValues };

export function parseServeArguments(given: ServeFlags): Parsed<ServeInput> {
  const problems = new Problems();
  const flags: ServeFlagValues = {
    ...given,
    file: given.file ?? [],
    only: given.only ?? [],
    policy: given.policy ?? [],
  };
  checkManifestSource(problems, flags);
  checkValues(problems, flags);
  problems.check(
    flags.accounts === undefined && flags.file.length === 0,
    'no manifests given: pass -f PATH (repeatable) or --accounts FILE',
  );
  problems.check(
    flags.accounts === undefined && (flags.only.length > 0 || flags.shard !== undefined),
    '--only and --shard choose accounts of --accounts FILE',
  );
  problems.check(
    flags.queue !== undefined && flags.shard !== undefined,
    '--queue and --shard both split the accounts between replicas: with --queue every replica takes its share from the queue, so leave out --shard',
  );
  problems.check(
    flags.queue === undefined && flags.replica !== undefined,
    '--replica names one of the replicas sharing a --queue: give --queue too',
  );
  problems.check(
    flags.queue !== undefined && flags.applyExpiry <= flags.drainTimeout,
    '--apply-expiry must be longer than --drain-timeout: an apply still draining would otherwise be taken over while it runs',
  );
  // A user or password in the URL would travel in every request line's logs and error messages: refused
  // at start, and the refusal does not repeat the URL.
  problems.check(
    notifyHasUserInfo(flags.notify),
    '--notify must not carry a user or password in its URL (they would end up in logs): give the receiver a URL without them',
  );
  return problems.result((): ServeInput =>
    flags.accounts !== undefined
      ? { mode: 'accounts', accountsFile: flags.accounts, flags }
      : { mode: 'one', paths: flags.file, flags },
  );
}

function notifyHasUserInfo(url: string | undefined): boolean {
  if (url === undefined) return false;
  try {
    const parsed = new URL(url);
    return parsed.username !== '' || parsed.password !== '';
  } catch {
    return false;
  }
}
