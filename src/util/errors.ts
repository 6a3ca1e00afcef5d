/**
 * The one error base class of the reconciler side (everything but `src/emulator/`).
 *
 * A `TelformError` is a user-facing failure: bad input, a refusal of the API, an unsafe plan.
 * It carries a stable `code` (for JSON output and tests), a one-sentence message, the place it
 * points at (a manifest position or a resource address) and JSON-safe details. The CLI prints it
 * as one line and exits with `exitCode`; anything that is not a `TelformError` is a bug and is
 * reported as such (stack only under `--debug`).
 */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

export interface SourcePlace {
  file: string;
  line: number;
  column: number;
}

export interface ErrorPlace {
  /** Where in a manifest the problem is. */
  source?: SourcePlace;
  /** Which resource it concerns, as `Kind/name`. */
  address?: string;
}

/**
 * Every `code` a `TelformError` carries, with what it means: one table, so a code is never
 * misspelled, `docs/errors.md` lists exactly these (a test compares them), and JSON output can be
 * relied on. Add a code here before throwing it.
 */
export const errorCodes = {
  // Options and input
  bad_option: 'a flag or argument is wrong or missing',
  invalid_option: 'an option value cannot be used (e.g. credentials given half)',
  bad_address: 'an address is not of the form Kind/name',
  no_manifests: 'no manifests were given (`-f`)',
  invalid_manifests: 'the manifests have errors (listed above it); nothing was sent',
  accounts_file: 'the accounts file cannot be read or is invalid',
  account_credentials: 'an account of the accounts file lacks a credential variable',
  values_file: 'the values file (`--values`) cannot be read or is invalid',
  secret_unresolved: 'a secret cannot be read from its source',
  secret_source: "a secret source is refused (a file outside the manifest folders, the API's own credentials)",
  literal_secret_in_plan:
    'a saved plan cannot hold a secret that is a literal in the manifest (refused by plan -o, and by apply FILE)',
  output_file:
    'a file telform was asked to write (-o, --out, --junit) is the state or beside it, a file the run reads, a link, not a regular file, a folder, or in a folder that does not exist; nothing was written',
  // Saved plans
  plan_target:
    '`plan -o` names a file that is not for a saved plan (a manifest, a file that is not regular, a missing folder) or cannot be written',
  plan_unreadable: 'the saved plan cannot be read or is not a plan',
  plan_version: 'the saved plan has a format this telform does not read',
  plan_unsealed: 'the saved plan has no integrity seal, or one made with another auth token',
  plan_edited: 'the saved plan was changed after `telform plan` wrote it',
  plan_elsewhere: 'the saved plan was made for another account or endpoint',
  plan_stale: 'something the saved plan was made from changed since',
  // Safety and approval
  unsafe_plan: 'apply refused changes the safety gates did not approve',
  create_rule:
    'the plan creates, replaces or changes a field with a value that breaks a create rule (the API would refuse it; no flag approves it)',
  policy_invalid:
    'a policy file cannot be read, or a rule or its CEL expression is invalid (named with its line and column)',
  people_invalid: 'the people file (who approves, with which keys and roles) cannot be read or is invalid',
  approval_refused:
    'apply refused by the approval rules: approvals missing, expired or not counted, outside a window, or frozen',
  approval_invalid:
    'an approval or acknowledgement cannot be made or read (a key that cannot sign, a folder that cannot be read)',
  policy_failed: 'a policy rule could not be evaluated on a change (named with its line and column and the resource)',
  test_invalid:
    '`telform test`: a test file cannot be read or is invalid (named with its line and column); exit code 2',
  rehearsal_failed:
    'apply --rehearse: the saved plan did not go through on a replica of the account, so nothing was applied',
  not_approved: 'apply was not approved (no terminal and no `--auto-approve`)',
  // The state
  no_state: 'there is no state where one is needed',
  state_locked: "another run holds the state's lock",
  state_conflict: 'the state changed under this run (compare-and-swap failed)',
  state_database: 'the PostgreSQL state cannot be used',
  serve_queue: "serve's queue database (--queue) cannot be used",
  state_schema: 'the PostgreSQL state has a newer schema than this telform',
  state_exists: 'a state migration target is not empty (it holds a ledger, or another file such as a manifest)',
  state_unsettled: 'the state holds operations of an interrupted apply still to settle',
  state_unknown: 'an address is not in the state',
  state_retired: 'the state was migrated elsewhere and is retired (`--reopen-retired` uses it again)',
  state_journal_only: 'the state has no ledger yet, only the journal of an apply that stopped before writing it',
  state_path: 'the state path cannot be resolved to a file (a folder, a loop of symbolic links)',
  journal_corrupt: 'a journal record other than a torn last one is damaged',
  history_broken:
    '`history verify` found a record that does not fit (edited, removed or inserted, the end cut short, the history emptied or lost)',
  history_unknown: '`revert` names an apply the history does not hold (never made, or dropped by retention)',
  revert_conflict: '`revert` would put back a field a later apply changed again (`--over N` takes it anyway)',
  revert_write_invalid:
    '`revert --write` would leave manifests that do not validate (a value from before the apply refers to what is gone); nothing is written',
  account_owned:
    'the account is owned by another ledger (its ownership marker names another lineage); this one may only read it',
  account_released: 'this ledger released the account (`state release`) and must claim it again to write to it',
  account_contested:
    'the account holds ownership markers of this ledger and of another lineage over the same objects: nothing is written until one goes',
  acl_quota:
    'the account holds the 100 SIP IP ACLs the API allows, and the plan (or the ownership marker of a claim) needs more',
  out_of_scope:
    'a manifest document, reference or option names objects outside the part of the account the state owns (its scope)',
  account_not_owned: '`state release` by a ledger that does not own the account',
  state_mv_kind: "`state mv` would change a resource's kind",
  state_mv_exists: '`state mv` names an address already in the state',
  state_mv_name: '`state mv` names an invalid metadata.name',
  state_endpoint_account: '`state endpoint` credentials are for another account',
  state_endpoint_empty: '`state endpoint` found none of the managed resources at the new endpoint',
  ledger_corrupt: 'the state file cannot be parsed',
  ledger_version: 'the state file has a newer format than this telform',
  ledger_mismatch: 'the state belongs to another account or endpoint',
  import_overwrite: 'import would overwrite existing files',
  import_conflict: 'import would record resources the state manages under other ids',
  // Planning and applying
  ambiguous_match: 'two or more live objects match one manifest resource',
  move_conflict: 'a move in the manifests disagrees with the state (both addresses held, or another kind)',
  ambiguous_create: 'after a lost create, several live objects could be the one made',
  unresolved_reference: 'a reference has no id when its change runs',
  vanished: 'an object disappeared from the account during the apply',
  not_updatable: 'a change the API cannot make in place was asked as an update',
  bad_spec: 'a spec lacks a field the API needs',
  delete_refused: 'the API refused or did not carry out a delete',
  not_in_account: 'a phone number in the manifests is not one the account owns (telform never buys numbers)',
  unlink_refused: 'the API refused to unlink a phone number from its campaign',
  update_outcome_unknown: 'a billed campaign update got no answer and was not sent again',
  create_outcome_unknown:
    'a create got no answer, the reads cannot tell whether it happened, and it was not sent again',
  kind_cycle: 'kinds refer to each other in a cycle (a bug in telform)',
  // The API
  api_error: 'the API answered with an error',
  unexpected_response: 'the API answered with something telform cannot use',
  not_the_api: 'the endpoint does not answer like the API',
  outcome_unknown: 'a request got no answer; it may or may not have taken effect',
  retries_exhausted: 'a request failed on every retry',
  partial_list: 'a list could not be read whole',
  product_not_enabled:
    'the account does not have a product (SIP trunking, 10DLC) that documents in the manifests or the state need: its lists answer 403',
  client_closed: 'a request was abandoned because the run stopped',
  connection_config: 'the connection settings cannot be used',
  // Accounts reports
  report_merge: 'reports cannot be merged into one',
  // Rollouts in waves
  rollout_record: 'the rollout record in the state backend cannot be read, or is not one',
  rollout_unfinished: 'a rollout stopped at a failed gate: continue it with --resume, or start over with --restart',
  rollout_nothing: '--resume found no rollout to continue (none recorded, or it completed)',
  rollout_changed:
    "--resume refused: an account's manifests or values changed since the rollout started; start a new one with --waves and --restart",
  // serve
  serve_listen_failed: 'serve cannot listen on the address of --listen',
  // The embedded emulator
  emulator_invalid_option: 'an emulator option is invalid',
  emulator_data_file_unreadable: "the emulator's data file cannot be read",
  emulator_data_file_locked: 'another emulator uses the data file',
  emulator_seed_file_invalid: "the emulator's seed file is invalid",
  emulator_listen_failed: 'the emulator cannot listen on its address',
} as const;

export type ErrorCode = keyof typeof errorCodes;

export interface TelformErrorOptions {
  place?: ErrorPlace;
  details?: Record<string, JsonValue>;
  exitCode?: number;
  cause?: unknown;
}

export class TelformError extends Error {
  readonly code: ErrorCode;
  readonly place: ErrorPlace | undefined;
  readonly details: Record<string, JsonValue>;
  readonly exitCode: number;

  constructor(code: ErrorCode, message: string, options: TelformErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'TelformError';
    this.code = code;
    this.place = options.place;
    this.details = options.details ?? {};
    this.exitCode = options.exitCode ?? 1;
  }
}

/** Formats a place as `file:line:col` and/or `Kind/name`, for prefixing a one-line message. */
export function formatPlace(place: ErrorPlace | undefined): string {
  if (!place) return '';
  const parts: string[] = [];
  if (place.source) parts.push(`${place.source.file}:${place.source.line}:${place.source.column}`);
  if (place.address) parts.push(place.address);
  return parts.join('  ');
}
