// The reconcile operation's input, options and result (run/reconcile.ts), apart so that its stages
// (this folder) read them without importing the operation itself.
import type { ResumedPlan } from '../plan-resume.js';
import { SecretFingerprinter } from '../../state/ledger.js';
import type { LedgerStore } from '../../state/ledger-store.js';
import type { DesiredResource, LiveModel, PlannerKinds } from '../../engine/model.js';
import type { Plan, PlanApprovals } from '../../engine/plan-types.js';
import { type Scope } from '../../resources/ownership-scope.js';
import { type ReadsAhead } from '../early-reads.js';
import { type ApprovalRulesInput, type JudgedPlan, type ProducerRefusal } from '../judgement.js';
import { type LiveContext } from '../../resources/live-side.js';
import { type DesiredSet } from '../../manifest/desired.js';
import type { ValueSet } from '../../manifest/values.js';
import { type RunIo, type Session } from '../context.js';
import type { HistoryTag } from '../../state/history.js';

export interface Reconciliation {
  session: Session;
  store: LedgerStore;
  kinds: PlannerKinds;
  desired: DesiredSet;
  /** Desired resources by address, as apply looks them up. */
  desiredByAddress: ReadonlyMap<string, DesiredResource>;
  /** The plan to show or apply: the fresh one, or the saved one once it is known to still apply (`judged.plan`). */
  plan: Plan;
  /** The one judgement of `plan` (run/judgement.ts): what the gates refuse with the approvals given. Apply reads only this. */
  judged: JudgedPlan;
  /** The approvals the plan was judged with (a saved plan's, widened by the flags given to apply it). */
  approvals: PlanApprovals;
  /** The run's view of the API, shared by plan and apply (reads like the account's numbers are made once). */
  live: LiveContext;
  /** Every kind's objects as this run read them to plan. */
  read: LiveModel;
  fingerprinter: SecretFingerprinter;
  /**
   * Nobody owns the account and the plan changes something: applying it claims the account for
   * this ledger, as its first write (`claimOnFirstWrite`). Never set for a read-only run.
   */
  claimsAccount: boolean;
  /** Where the run reads files and variables: the history record's origin is found there. */
  io: RunIo;
  /** A saved plan partly applied before: what is left of it, and the reviewed plan its approvals sign. */
  resumed?: ResumedPlan;
  /** What ran the apply, for its history record; set by a caller other than `apply` (a rollout's wave). */
  history?: HistoryTag;
  close(): Promise<void>;
}

/** What to reconcile: manifest paths, or a plan saved with `plan -o` (applied exactly, or refused). */
export type ReconcileInput =
  | { paths: readonly string[]; values?: ValueSet }
  | { savedPlan: string }
  /** Desired resources made by the caller (a revert's, from the state and the history). */
  | { resources: DesiredResource[] };

export interface ReconcileOptions {
  /** Take the ledger's lock (apply): a read-only run (plan, drift) keeps what it settles in memory. */
  lock: boolean;
  allowSecretFilesOutside?: boolean | undefined;
  /** `--target` addresses; a saved plan keeps the targets it was made with. */
  targets?: readonly string[];
  /** `--exclude` addresses; a saved plan keeps the ones it was made with. */
  excludes?: readonly string[];
  /** `--destroy`: plan the deletion of everything the state manages; `input` then names no manifests. */
  destroy?: boolean;
  /** Only reads (drift): a ledger that does not own the account may run it, and is told who does. */
  readOnly?: boolean;
  /** The scope the accounts file gives the account: a state that owns another part is refused. */
  scope?: Scope;
  /** `--policy FILE`: rules evaluated over the fresh plan (a saved plan carries its findings). */
  policies?: readonly string[];
  /** `--show-unmanaged`: read every kind, not only those the manifests and the state need. */
  readAll?: boolean;
  /** Reads the command started before the rest of it loaded (`readAhead`); taken over once. */
  readsAhead?: ReadsAhead;
  /** Rewrites the fresh plan before the gates judge it (a revert marks what cannot come back). */
  adjust?: (plan: Plan, kinds: PlannerKinds) => Plan;
  /** The producer's own verdict, judged with the gates (a revert's conflicts). */
  producerRefusal?: (plan: Plan) => ProducerRefusal | undefined;
  /**
   * An apply judged by the approval rules of `policies` (apply, revert, each account of --accounts
   * or of a wave): the signed approvals and `--emergency`. Serve judges them as holds instead.
   */
  approvalRules?: Omit<ApprovalRulesInput, 'policies' | 'planFile' | 'cwd'>;
}
