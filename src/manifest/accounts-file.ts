import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import { LineCounter, isNode, parseDocument } from 'yaml';
import * as z from 'zod';
import { backendFor } from '../state/backends/registry.js';
import { parseScope, type Scope } from '../resources/ownership-scope.js';
import { TelformError, type SourcePlace } from '../util/errors.js';
import { valuesFromYaml, type GivenValue } from './values.js';
import { plainValue } from './values-file.js';

/**
 * The accounts file of a many-account run (`--accounts accounts.yaml`): for each account its name,
 * its manifests, the names of the environment variables holding its credentials (never the
 * credentials themselves, so the file can be committed), its state and optionally its endpoint.
 *
 * ```yaml
 * defaults:                                # optional, for every account that does not say
 *   state: states/{account}.state.json     # or postgres://user@db:5432/telform
 *   endpoint: https://api.example.com
 * accounts:
 *   - name: acme
 *     manifests: [acme/]                   # relative to this file
 *     credentials: { auth_id_env: ACME_AUTH_ID, auth_token_env: ACME_AUTH_TOKEN }
 *     state: postgres://telform@db:5432/telform   # optional with defaults.state
 *     workspace: acme                      # database state only; default the account name
 *     values: { pbx_ip: 203.0.113.10 }     # `{ value: pbx_ip }` in its manifests; over defaults.values
 *     policies: [policies/acme.yaml]       # CEL policy files, after defaults.policies (docs/policies.md)
 *     scope: messaging                     # the part of the account this state owns (state claim --scope)
 * ```
 *
 * `{account}` in a state path is replaced by the account name, so one default serves every account.
 * Relative manifest and state paths are resolved against the accounts file's folder.
 */

export interface AccountSpec {
  name: string;
  /** Absolute paths. */
  manifests: string[];
  credentials: { authIdEnv: string; authTokenEnv: string };
  /** Where the account's ledger lives: an absolute path, or a location another state backend recognises (a `postgres://` URL). */
  state: string;
  /** For database state: the workspace (default the account name). */
  workspace: string;
  endpoint: string | undefined;
  /** `defaults.values` overlaid with the account's own `values`, each with where it was given. */
  values: ReadonlyMap<string, GivenValue>;
  /** Policy files (absolute): `defaults.policies`, then the account's own `policies`. */
  policies: string[];
  /**
   * The part of the account its state owns (`scope: messaging`): validate checks the manifests
   * against it, and plan, apply and drift refuse a state that owns another part.
   */
  scope?: Scope;
}

/** Account names go into reports, file names and workspace names: a conservative alphabet. */
export const accountNamePattern = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$/;
const envName = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'expected the name of an environment variable, e.g. ACME_AUTH_ID');

const accountSchema = z.strictObject({
  name: z
    .string()
    .regex(
      accountNamePattern,
      'expected letters, digits, ".", "_" or "-" (at most 63, starting with a letter or digit)',
    ),
  manifests: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]),
  credentials: z.strictObject({ auth_id_env: envName, auth_token_env: envName }),
  state: z.string().min(1).optional(),
  workspace: z.string().regex(accountNamePattern, 'expected letters, digits, ".", "_" or "-"').optional(),
  endpoint: z.string().min(1).optional(),
  values: z.record(z.string(), z.unknown()).optional(),
  policies: z.union([z.string().min(1), z.array(z.string().min(1))]).optional(),
  scope: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]).optional(),
});

const fileSchema = z.strictObject({
  defaults: z
    .strictObject({
      state: z.string().min(1).optional(),
      endpoint: z.string().min(1).optional(),
      values: z.record(z.string(), z.unknown()).optional(),
      policies: z.union([z.string().min(1), z.array(z.string().min(1))]).optional(),
    })
    .optional(),
  accounts: z.array(accountSchema).min(1, 'expected at least one account'),
});

export async function loadAccountsFile(file: string, cwd: string): Promise<AccountSpec[]> {
  return (await loadAccounts(file, cwd)).accounts;
}

/** The accounts file, with where a rollout in waves keeps its progress (see `rolloutLocation`). */
export interface AccountsDocument {
  accounts: AccountSpec[];
  /** `defaults.state`, resolved like an account's (a path made absolute, or a URL); undefined without it. */
  defaultState: string | undefined;
}

/** Where a rollout's progress is kept: next to the accounts' state, under the reserved name `_rollout`. */
export function rolloutLocation(document: AccountsDocument): { state: string; workspace: string } | undefined {
  const state = document.defaultState;
  if (state === undefined) return undefined;
  // "_rollout" can never be an account's name (those start with a letter or digit).
  if (state.includes('{account}')) return { state: state.replaceAll('{account}', '_rollout'), workspace: '_rollout' };
  return backendFor(state).beside(state, 'rollout');
}

export async function loadAccounts(file: string, cwd: string): Promise<AccountsDocument> {
  const path = resolve(cwd, file);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new TelformError(
      'accounts_file',
      `cannot read the accounts file ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
  return parseAccountsDocument(text, file, dirname(path));
}

export function parseAccountsFile(text: string, file: string, folder: string): AccountSpec[] {
  return parseAccountsDocument(text, file, folder).accounts;
}

export function parseAccountsDocument(text: string, file: string, folder: string): AccountsDocument {
  const lines = new LineCounter();
  const document = parseDocument(text, { lineCounter: lines, prettyErrors: false });
  const place = (path: readonly PropertyKey[]): { source: SourcePlace } => {
    const node = document.getIn(path as unknown[], true);
    const offset = isNode(node) && node.range ? node.range[0] : 0;
    const { line, col } = lines.linePos(offset);
    return { source: { file, line, column: col } };
  };
  const failure = (message: string, source: SourcePlace) =>
    new TelformError('accounts_file', message, { place: { source } });
  const yamlError = document.errors[0];
  if (yamlError) {
    const { line, col } = lines.linePos(yamlError.pos[0]);
    throw new TelformError(
      'accounts_file',
      `the accounts file is not valid YAML: ${yamlError.message.split('\n')[0]}`,
      {
        place: { source: { file, line, column: col } },
      },
    );
  }
  const at = (offset: number): SourcePlace => {
    const { line, col } = lines.linePos(offset);
    return { file, line, column: col };
  };
  const parsed = fileSchema.safeParse(plainValue(document, at, 'the accounts file', failure));
  if (!parsed.success) {
    const issue = parsed.error.issues[0] as z.core.$ZodIssue;
    const field = issue.path.map(String).join('.');
    throw new TelformError('accounts_file', `${field ? `${field}: ` : ''}${issue.message}`, {
      place: place(issue.path),
    });
  }
  const seen = new Set<string>();
  const defaultState = parsed.data.defaults?.state;
  const defaultValues = valuesFromYaml(
    parsed.data.defaults?.values,
    file,
    'defaults.values',
    (name) => place(['defaults', 'values', name]).source,
    failure,
  );
  const accounts = parsed.data.accounts.map((account, index) => {
    if (seen.has(account.name)) {
      throw new TelformError('accounts_file', `accounts.${index}.name: "${account.name}" is listed twice`, {
        place: place(['accounts', index, 'name']),
      });
    }
    seen.add(account.name);
    const state = account.state ?? parsed.data.defaults?.state;
    if (state === undefined) {
      throw new TelformError(
        'accounts_file',
        `accounts.${index}: account "${account.name}" has no state (give state, or defaults.state)`,
        {
          place: place(['accounts', index]),
        },
      );
    }
    const named = state.replaceAll('{account}', account.name);
    let scope: Scope | undefined;
    try {
      scope =
        account.scope === undefined
          ? undefined
          : parseScope(typeof account.scope === 'string' ? [account.scope] : account.scope);
    } catch (error) {
      throw new TelformError(
        'accounts_file',
        `accounts.${index}.scope: ${(error as Error).message.replace(/^--scope /, '')}`,
        { place: place(['accounts', index, 'scope']) },
      );
    }
    return {
      ...(scope ? { scope } : {}),
      name: account.name,
      manifests: (typeof account.manifests === 'string' ? [account.manifests] : account.manifests).map((entry) =>
        absolute(folder, entry),
      ),
      credentials: { authIdEnv: account.credentials.auth_id_env, authTokenEnv: account.credentials.auth_token_env },
      state: backendFor(named).resolveFrom(folder, named),
      workspace: account.workspace ?? account.name,
      endpoint: account.endpoint ?? parsed.data.defaults?.endpoint,
      policies: [parsed.data.defaults?.policies, account.policies]
        .flatMap((given) => (given === undefined ? [] : typeof given === 'string' ? [given] : given))
        .map((entry) => absolute(folder, entry)),
      values: new Map([
        ...defaultValues,
        ...valuesFromYaml(
          account.values,
          file,
          `accounts.${index}.values`,
          (name) => place(['accounts', index, 'values', name]).source,
          failure,
        ),
      ]),
    };
  });
  return {
    accounts,
    defaultState: defaultState === undefined ? undefined : backendFor(defaultState).resolveFrom(folder, defaultState),
  };
}

function absolute(folder: string, path: string): string {
  return isAbsolute(path) ? path : resolve(folder, path);
}
