// Exit codes of every command, in one place (docs/commands.md, plan). `--help` prints this table;
// the operations return them, so a command and each account of --accounts exit alike.
export const ExitCode = {
  /** Success; for plan/drift: no changes. */
  ok: 0,
  /** An error: invalid manifests, an API failure, a refused or failed apply. */
  error: 1,
  /** `plan --detailed-exitcode`: changes present. `drift`: the live account was changed outside telform. */
  changes: 2,
  /** `drift`: only manifest changes wait to be applied. */
  pendingManifestChanges: 3,
} as const;

export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

export const exitCodeHelp = `Exit codes:
  0  success (plan/drift: no changes)
  1  error (invalid manifests, API failure, refused or failed apply)
  2  plan --detailed-exitcode: changes present; drift: the account was changed outside telform
  3  drift: only manifest changes are waiting to be applied
With --accounts, and for report merge: the worst over the accounts (1, then 2, then 3, then 0).`;
