import { createHash } from 'node:crypto';
import { constants, type Stats } from 'node:fs';
import { lstat, open, realpath, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { inspect } from 'node:util';

/**
 * Secrets in manifests (docs/manifests.md): a write-only field (`password`)
 * holds `{ fromEnv: VAR }`, `{ fromFile: path }` (relative to the manifest that names it) or a
 * literal string (accepted with a warning). Only plan/apply and `validate --check-secrets`
 * resolve them, so CI can validate without secrets.
 *
 * A secret value is only ever held in a `Sensitive`, which prints, logs and serialises as
 * `(sensitive)`; the value is read with `reveal()`, by the code that sends or fingerprints it.
 */
export class Sensitive {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
  }

  reveal(): string {
    return this.#value;
  }

  toString(): string {
    return '(sensitive)';
  }

  toJSON(): string {
    return '(sensitive)';
  }

  [inspect.custom](): string {
    return '(sensitive)';
  }
}

/** Where a secret comes from; the desired model holds these, never resolved values. */
export type SecretSource =
  | { source: 'env'; name: string }
  /** `path` is absolute (resolved against the manifest's folder); `written` is as in the manifest. */
  | { source: 'file'; path: string; written: string }
  | { source: 'literal'; value: Sensitive };

export function isSecretSource(value: unknown): value is SecretSource {
  return (
    typeof value === 'object' &&
    value !== null &&
    'source' in value &&
    ((value as { source: unknown }).source === 'env' ||
      (value as { source: unknown }).source === 'file' ||
      (value as { source: unknown }).source === 'literal')
  );
}

/**
 * Turns a validated manifest value (a string, `{ fromEnv }` or `{ fromFile }`) into its source.
 * The schema has checked the shape already.
 */
export function toSecretSource(raw: unknown, manifestAbsolutePath: string): SecretSource {
  if (typeof raw === 'string') return { source: 'literal', value: new Sensitive(raw) };
  const object = raw as { fromEnv?: string; fromFile?: string };
  if (object.fromEnv !== undefined) return { source: 'env', name: object.fromEnv };
  const written = object.fromFile as string;
  return { source: 'file', path: path.resolve(path.dirname(manifestAbsolutePath), written), written };
}

/** Largest secret file read: a password is short; a bigger file is the wrong file. */
export const maxSecretFileBytes = 64 * 1024;

/**
 * The variables the API client takes its own credentials from. They are never a secret source: a
 * SIP password set from the auth token would hand the key to the whole account to every device
 * provisioned with that credential.
 */
export const apiCredentialVariables: readonly string[] = [
  'TELFORM_AUTH_ID',
  'TELFORM_AUTH_TOKEN',
  'PLIVO_AUTH_ID',
  'PLIVO_AUTH_TOKEN',
];

/** Variables holding an API auth token: a secret whose value equals one of theirs is refused. */
const apiTokenVariables: readonly string[] = ['TELFORM_AUTH_TOKEN', 'PLIVO_AUTH_TOKEN'];

/**
 * Folders whose files are the kernel's or devices, never a password: `/proc/self/environ` holds
 * every variable of the run, `/dev/stdin` or a device would block or stream. They are refused
 * wherever a path leads, also through a symbolic link.
 */
const specialFolders: readonly string[] = ['/proc', '/sys', '/dev'];

/** `refused`: the source is one telform never reads a secret from (not merely missing or unreadable). */
export type SecretResolution =
  { ok: true; value: Sensitive; realPath?: string } | { ok: false; message: string; refused?: boolean };

export interface SecretEnvironment {
  env: Readonly<Record<string, string | undefined>>;
  /**
   * Real paths (symbolic links resolved) of the folders the manifests were loaded from: a
   * `fromFile` secret must lie inside one of them, or `anywhere` (`--allow-secret-files-outside`).
   */
  fileRoots: readonly string[] | 'anywhere';
  /** How error messages name `fileRoots` (default: the folders the manifests were loaded from). */
  fileRootsName?: string;
}

/** The auth tokens in `env` (TELFORM_AUTH_TOKEN, PLIVO_AUTH_TOKEN), by variable, for the same-value check. */
function apiTokensIn(env: SecretEnvironment['env']): Array<[string, string]> {
  return apiTokenVariables.flatMap((name) => {
    const value = env[name];
    return value ? [[name, value] as [string, string]] : [];
  });
}

/**
 * The variable an accounts run sets, for each account, to the SHA-256 digests of the auth tokens of
 * every account of the file (JSON: `[{variable, account, sha256}]`): a secret equal to any of them
 * is refused, naming the account and its variable. Digests, not the tokens: an account's run never
 * holds another account's token. Its name falls under `TELFORM_AUTH_`, so it is never a secret source.
 */
export const runTokenDigestsVariable = 'TELFORM_AUTH_TOKEN_DIGESTS';

export interface RunTokenDigest {
  variable: string;
  account: string;
  sha256: string;
}

export function tokenDigest(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

function runTokenDigests(env: SecretEnvironment['env']): RunTokenDigest[] {
  const text = env[runTokenDigestsVariable];
  if (!text) return [];
  try {
    const parsed: unknown = JSON.parse(text);
    return Array.isArray(parsed)
      ? (parsed as RunTokenDigest[]).filter((entry) => typeof entry?.sha256 === 'string')
      : [];
  } catch {
    return [];
  }
}

/**
 * Every other variable that holds a credential telform (or its CI templates) reads, and why it is
 * refused as a secret source: a manifest is code anyone may propose, and a SIP password is handed
 * to every device provisioned with it, so copying one of these into it leaks it.
 */
const otherCredentialVariables: ReadonlyMap<string, string> = new Map([
  [
    'PGPASSWORD',
    "holds the state database's password (telform reads it to connect; whoever got it could rewrite the state)",
  ],
  [
    'TELFORM_STATE',
    "names the state, and a state URL may carry the database's password (whoever got it could rewrite the state)",
  ],
  [
    'TELFORM_GITLAB_TOKEN',
    "is the GitLab token telform's pipeline template reads (whoever got it could act on the repository)",
  ],
  ['CI_JOB_TOKEN', "is the GitLab job's token (whoever got it could act on the repository)"],
  [
    'GITHUB_TOKEN',
    "is the GitHub token telform's workflows pass to their steps (whoever got it could act on the repository)",
  ],
]);

/**
 * The variable telform sets, for each account of an accounts file, to the names of every account's
 * credential variables (comma-separated); they are refused as secret sources, with the reason, rather
 * than reported as not set. Setting it by hand refuses more variables.
 */
export const credentialVariablesVariable = 'TELFORM_CREDENTIAL_VARIABLES';

/** Why `fromEnv: name` is refused without reading it, or undefined. `env` brings the accounts' variables. */
export function refuseCredentialVariable(
  name: string,
  env: Readonly<Record<string, string | undefined>> = {},
): string | undefined {
  if (apiCredentialVariables.includes(name) || /^(TELFORM|PLIVO)_AUTH_/.test(name)) {
    return `${name} is one of the API's own credentials, never a secret source (whoever got this password would hold the whole account)`;
  }
  const why = otherCredentialVariables.get(name);
  if (why) return `${name} ${why}: never a secret source`;
  if (name === credentialVariablesVariable)
    return `${name} is telform's own list of credential variables, never a secret source`;
  const accounts = (env[credentialVariablesVariable] ?? '').split(',').map((each) => each.trim());
  if (accounts.includes(name)) {
    return `${name} holds the credentials of an account in the accounts file, never a secret source (whoever got this password would hold that account)`;
  }
  return undefined;
}

/** The folder under which `absolute` is a special file (`/proc`, `/sys`, `/dev`), or undefined. */
export function specialFolderOf(absolute: string): string | undefined {
  return specialFolders.find((folder) => absolute === folder || absolute.startsWith(`${folder}/`));
}

export function isInside(child: string, folder: string): boolean {
  const relative = path.relative(folder, child);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

/** Real paths of the manifest folders (a folder that cannot be resolved is left out). */
export async function realRoots(roots: readonly string[]): Promise<string[]> {
  const real = await Promise.all(roots.map((root) => realpath(root).catch(() => undefined)));
  return real.filter((root): root is string => root !== undefined);
}

/**
 * Resolves a secret. A file's content is used without one trailing line break (`echo pw > file`
 * writes one); other whitespace is kept, as it may be part of the password. An unset or empty
 * variable and an empty file are failures: an empty password is never what was meant. The API's
 * own credentials are refused, by name and by value, whatever the source.
 */
export async function resolveSecret(source: SecretSource, environment: SecretEnvironment): Promise<SecretResolution> {
  const resolution = await readSource(source, environment);
  if (!resolution.ok) return resolution;
  // Every account's token of an accounts run, its own included, named by the variable the user set.
  const digests = runTokenDigests(environment.env);
  if (digests.length > 0) {
    const digest = tokenDigest(resolution.value.reveal());
    const match = digests.find((entry) => entry.sha256 === digest);
    if (match) {
      return {
        ok: false,
        refused: true,
        message: `${describeOrigin(source)} equals the API auth token of account ${match.account} (${match.variable}), which is never sent as a secret`,
      };
    }
  }
  for (const [name, token] of apiTokensIn(environment.env)) {
    if (resolution.value.reveal() === token) {
      return {
        ok: false,
        refused: true,
        message: `${describeOrigin(source)} equals the API auth token in ${name}, which is never sent as a secret`,
      };
    }
  }
  return resolution;
}

function describeOrigin(source: SecretSource): string {
  switch (source.source) {
    case 'env':
      return `the value of ${source.name}`;
    case 'file':
      return `the content of ${source.written}`;
    case 'literal':
      return 'the literal value';
    default: {
      const never: never = source;
      return never;
    }
  }
}

async function readSource(source: SecretSource, environment: SecretEnvironment): Promise<SecretResolution> {
  switch (source.source) {
    case 'literal':
      return { ok: true, value: source.value };
    case 'env': {
      const refused = refuseCredentialVariable(source.name, environment.env);
      if (refused) return { ok: false, refused: true, message: refused };
      const value = environment.env[source.name];
      if (value === undefined) return { ok: false, message: `environment variable ${source.name} is not set` };
      if (value === '') return { ok: false, message: `environment variable ${source.name} is empty` };
      return { ok: true, value: new Sensitive(value) };
    }
    case 'file':
      return readSecretFile(
        source,
        environment.fileRoots,
        environment.fileRootsName ?? 'the folders the manifests were loaded from',
      );
    default: {
      const never: never = source;
      return never;
    }
  }
}

/**
 * Reads a secret file after checking where it really is: the real path (every symbolic link
 * resolved) must not be a special file and must lie inside the manifest folders; the file is then
 * opened without following a link (a link swapped in after the check fails) and without blocking
 * (a FIFO swapped in does not hang the run), and must be a regular file.
 */
async function readSecretFile(
  source: Extract<SecretSource, { source: 'file' }>,
  roots: SecretEnvironment['fileRoots'],
  rootsName: string,
): Promise<SecretResolution> {
  const fail = (reason: string, refused = false): SecretResolution => ({
    ok: false,
    refused,
    message: `secret file ${source.written} ${reason}`,
  });
  const lexicalSpecial = specialFolderOf(source.path);
  if (lexicalSpecial) return fail(`is a special file (under ${lexicalSpecial}), never a secret file`, true);
  let real: string;
  try {
    real = await realpath(source.path);
  } catch (error) {
    return fail(describeReadError(error));
  }
  const special = specialFolderOf(real);
  if (special) return fail(`leads to ${real}, a special file (under ${special}), never a secret file`, true);
  if (roots !== 'anywhere' && !roots.some((root) => isInside(real, root))) {
    const through = real === source.path ? '' : ` (it leads to ${real})`;
    return fail(
      `is outside ${rootsName}${through}; keep secret files beside the manifests, or pass --allow-secret-files-outside`,
      true,
    );
  }
  let handle: FileHandle;
  try {
    const info = await lstat(real);
    if (!info.isFile()) return fail(`is ${fileTypeOf(info)}, not a regular file`, true);
    handle = await open(real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    return fail(describeReadError(error));
  }
  let text: string;
  try {
    const info = await handle.stat();
    if (!info.isFile()) return fail(`is ${fileTypeOf(info)}, not a regular file`, true);
    if (info.size > maxSecretFileBytes) return fail(`is larger than ${maxSecretFileBytes / 1024} KB`);
    text = await handle.readFile('utf8');
  } catch (error) {
    return fail(describeReadError(error));
  } finally {
    await handle.close();
  }
  const value = text.replace(/\r?\n$/, '');
  if (value === '') return fail('is empty');
  return { ok: true, value: new Sensitive(value), realPath: real };
}

function fileTypeOf(info: Stats): string {
  if (info.isDirectory()) return 'a folder';
  if (info.isFIFO()) return 'a FIFO (named pipe)';
  if (info.isSocket()) return 'a socket';
  if (info.isCharacterDevice() || info.isBlockDevice()) return 'a device';
  return 'a special file';
}

function describeReadError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return 'does not exist';
  if (code === 'EACCES' || code === 'EPERM') return 'cannot be read (permission denied)';
  if (code === 'ELOOP')
    return 'cannot be read (a loop of symbolic links, or a link put in its place while it was read)';
  return 'cannot be read';
}
