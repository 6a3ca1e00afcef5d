import { desiredSpecOf } from '../engine/change-fields.js';
import { readFile } from 'node:fs/promises';
import { sameEndpoint } from '../util/endpoint.js';
import { TelformError } from '../util/errors.js';
import { checkOutputFile, writeOutputFile, type OutputGuard } from './output-file.js';
import type { DesiredResource } from '../engine/model.js';
import { PlanSealer } from './plan-seal.js';
import { planFormatVersion } from '../engine/plan-format.js';
import type { Plan, PlanApprovals } from '../engine/plan-types.js';

/**
 * Saved plans (`plan -o plan.json`, `apply plan.json`): the reviewed plan is applied exactly, or
 * refused when anything it was computed from changed since (docs/commands.md, plan). `file` is as
 * the user gave it (messages name it so), relative to `cwd`.
 */
export async function writeSavedPlan(file: string, plan: Plan, authToken: string, guard: OutputGuard): Promise<void> {
  assertPlanSavable(plan, file);
  // The folder was checked before the account was read; the guard checks it again as it writes.
  await writeOutputFile(file, guard, `${JSON.stringify(new PlanSealer(authToken).seal(plan), null, 2)}\n`, 0o644);
}

/**
 * A saved plan never holds a secret's value, so `apply FILE` reads each secret again from where the
 * plan says it came from; a literal in the manifest has no such place. Refused when the plan is
 * saved, before a reviewer approves a plan that can never be applied.
 */
export function assertPlanSavable(plan: Plan, file: string): void {
  for (const change of plan.changes) {
    for (const [field, source] of Object.entries(change.secret_sources ?? {})) {
      if (!('literal' in source)) continue;
      const where = change.source ? ` (${change.source.file}:${change.source.line})` : '';
      throw new TelformError(
        'literal_secret_in_plan',
        `-o ${file}: ${change.address}${where} has its ${field} as a literal in the manifest, and a saved plan never holds secret values, so telform apply ${file} could not set it; write it as { fromEnv: VAR } or { fromFile: PATH }, or apply with -f`,
      );
    }
  }
}

export async function readSavedPlan(file: string): Promise<Plan> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    throw new TelformError('plan_unreadable', `cannot read the saved plan ${file}`);
  }
  const plan = parseSavedPlan(text);
  if (!plan) {
    // A manifest given without -f: say how to apply it, never suggest a command that overwrites it.
    const hint = looksLikeManifest(file, text)
      ? `it looks like a manifest: apply manifests with -f, as in telform apply -f ${file}`
      : 'make one with telform plan -f MANIFESTS -o plan.json';
    throw new TelformError('plan_unreadable', `${file} is not a saved plan; ${hint}`);
  }
  if (plan.format_version !== planFormatVersion) {
    throw new TelformError(
      'plan_version',
      `${file} has plan format ${String(plan.format_version)}; this telform reads format ${planFormatVersion}`,
    );
  }
  // A file edited by hand (or cut short) must not reach the renderers: the first field that is not
  // what telform writes is named, as a path into the JSON.
  // The schema is built only here, for a plan read back (every other run only makes plans).
  const { planSchema } = await import('../engine/plan-schema.js');
  const checked = planSchema.safeParse(plan);
  if (!checked.success) {
    const issue = checked.error.issues[0];
    const where = issue ? jsonPath(issue.path) : '';
    throw new TelformError(
      'plan_unreadable',
      `${file} is not a valid saved plan: ${where ? `${where}: ` : ''}${issue?.message ?? 'unexpected shape'}; make a new one with telform plan -o ${file}`,
    );
  }
  return plan;
}

/** `changes[0].kind`: where in the plan's JSON a problem is. */
function jsonPath(pathParts: readonly PropertyKey[]): string {
  return pathParts
    .map((part, index) => (typeof part === 'number' ? `[${part}]` : `${index === 0 ? '' : '.'}${String(part)}`))
    .join('');
}

function parseSavedPlan(text: string): Plan | undefined {
  try {
    const plan = JSON.parse(text) as Plan;
    if (typeof plan !== 'object' || plan === null || !Array.isArray(plan.changes) || typeof plan.basis !== 'object')
      return undefined;
    return plan;
  } catch {
    return undefined;
  }
}

function looksLikeManifest(file: string, text: string): boolean {
  return /\.ya?ml$/i.test(file) || /^\s*apiVersion\s*:/m.test(text);
}

/** Said when `-o` names a device or a pipe. */
const savedPlanInstead =
  'a saved plan is written to a file of its own (such as plan.json) for telform apply FILE, and --format json prints the plan on stdout';

/**
 * Where `plan -o` may write: what the output guard allows (run/output-file.ts: never the state, a
 * manifest, a link, a folder or a device), never a `.yaml` name (a plan is JSON, and in a manifest
 * folder it would be read as a manifest next time), and never over a file that is not a saved plan
 * (a typo must not replace a key or anything else with a plan). Returns the guard the write uses.
 */
export async function assertPlanTarget(out: string, guard: OutputGuard): Promise<OutputGuard> {
  const planGuard: OutputGuard = {
    ...guard,
    instead: savedPlanInstead,
    replaces: { what: 'a saved plan', test: (text) => parseSavedPlan(text) !== undefined },
  };
  await checkOutputFile(out, planGuard);
  if (/\.ya?ml$/i.test(out))
    throw new TelformError('plan_target', `${guard.option} ${out}: a saved plan is JSON; name it like plan.json`);
  return planGuard;
}

/** The desired resources a saved plan was computed from (secrets as their sources, never values). */
export function desiredFromPlan(plan: Plan): DesiredResource[] {
  const resources: DesiredResource[] = [];
  for (const change of plan.changes) {
    const after = desiredSpecOf(change);
    if (!after || change.address.includes('/#')) continue;
    const spec = { ...after };
    for (const field of Object.keys(change.secret_sources ?? {})) delete spec[field];
    resources.push({
      kind: change.kind,
      name: change.name,
      address: change.address,
      protect: change.protect ?? false,
      spec,
      secretSources: change.secret_sources ?? {},
      ...(change.moved_from ? { movedFrom: [change.moved_from] } : {}),
      ...(change.source ? { source: change.source } : {}),
    });
  }
  return resources;
}

/**
 * What differs between the saved plan's basis and a fresh one, by address: a live object changed,
 * a create's name is now taken, a secret changed, or a secret is read from elsewhere (said so).
 */
export function staleAddresses(saved: Plan, fresh: Plan): string[] {
  const stale = new Map<string, string[]>();
  const mark = (key: string, note?: string): void => {
    const address = key.split('#')[0] as string;
    const notes = stale.get(address) ?? [];
    if (note) notes.push(note);
    stale.set(address, notes);
  };
  for (const [key, fingerprint] of Object.entries(saved.basis.objects)) {
    const now = fresh.basis.objects[key];
    if (now !== fingerprint) mark(key, now === undefined ? undefined : sourceMoved(key, fingerprint, now));
  }
  for (const key of Object.keys(fresh.basis.objects)) if (!(key in saved.basis.objects)) mark(key);
  return [...stale.keys()].sort().map((address) => {
    const notes = stale.get(address) ?? [];
    return notes.length > 0 ? `${address} (${notes.join('; ')})` : address;
  });
}

/** `its password is now read from file b.txt, not file a.txt`, when a secret's origin moved. */
function sourceMoved(key: string, then: string, now: string): string | undefined {
  const before = /^secret:[0-9a-f]+:(.*)$/.exec(then)?.[1];
  const after = /^secret:[0-9a-f]+:(.*)$/.exec(now)?.[1];
  if (before === undefined || after === undefined || before === after) return undefined;
  return `its ${key.split('#')[1] ?? 'secret'} is now read from ${after}, not ${before}`;
}

/** A saved plan applies only to the endpoint and account it was made for. */
/** The state's rule for endpoints: `127.0.0.1`, `localhost` and `[::1]` name one host. */
function assertSameAccount(saved: Plan, endpoint: string, account: string, file: string): void {
  if (!sameEndpoint(saved.endpoint, endpoint) || saved.account !== account) {
    throw new TelformError(
      'plan_elsewhere',
      `${file} was made for account ${saved.account} at ${saved.endpoint}, not ${account} at ${endpoint}`,
    );
  }
}

/**
 * Refuses a saved plan that is not exactly what `plan -o` wrote with this account's token, before
 * any secret or the account is read (plan-seal.ts says what the seal covers and proves).
 */
export function assertPlanSealed(
  saved: Plan,
  session: { endpointLabel: string; account: string; authToken: string },
  file: string,
): void {
  assertSameAccount(saved, session.endpointLabel, session.account, file);
  const verdict = new PlanSealer(session.authToken).check(saved);
  switch (verdict) {
    case 'ok':
      return;
    case 'missing':
      throw new TelformError(
        'plan_unsealed',
        `${file} has no integrity seal, so it was not written by telform plan -o and is not applied; make it with telform plan -o ${file}`,
      );
    case 'other_key':
      throw new TelformError(
        'plan_unsealed',
        `${file} was sealed with another auth token than this run's (the token was changed since, or the plan is not this account's); make a new plan`,
      );
    case 'edited':
      throw new TelformError(
        'plan_edited',
        `${file} was changed after telform plan wrote it (its integrity seal does not match), so nothing was applied; make a new plan instead of editing one`,
      );
    default: {
      const never: never = verdict;
      throw new Error(`unhandled seal check ${String(never)}`);
    }
  }
}

/**
 * What `show` says of a saved plan's seal (the templates show a plan before they apply it): verified
 * with the token it was given, or why not, as a warning for every format. `authToken` is undefined
 * when the environment has none for the plan's endpoint.
 */
export function describeSeal(
  saved: Plan,
  authToken: string | undefined,
  file: string,
): { verified: boolean; message: string } {
  if (authToken === undefined) {
    if (!saved.seal)
      return {
        verified: false,
        message: `${file} has no integrity seal: it was not written by telform plan -o, and apply will refuse it`,
      };
    return {
      verified: false,
      message: `the integrity seal of ${file} was not verified: no auth token in the environment (TELFORM_AUTH_TOKEN or PLIVO_AUTH_TOKEN); apply verifies it before it sends anything`,
    };
  }
  const verdict = new PlanSealer(authToken).check(saved);
  switch (verdict) {
    case 'ok':
      return {
        verified: true,
        message: `${file}: its integrity seal was verified with this environment's auth token: it is the plan telform plan -o wrote`,
      };
    case 'missing':
      return {
        verified: false,
        message: `${file} has no integrity seal: it was not written by telform plan -o, and apply will refuse it`,
      };
    case 'other_key':
      return {
        verified: false,
        message: `the integrity seal of ${file} was not verified: it was sealed with another auth token than this environment's (another account's, or one rotated since), and apply with this token will refuse it`,
      };
    case 'edited':
      return {
        verified: false,
        message: `${file} was changed after telform plan wrote it (its integrity seal does not match): this is not the plan that was made, and apply will refuse it`,
      };
    default: {
      const never: never = verdict;
      throw new Error(`unhandled seal check ${String(never)}`);
    }
  }
}

export function assertPlanApplies(saved: Plan, fresh: Plan, file: string): void {
  assertSameAccount(saved, fresh.endpoint, fresh.account, file);
  // A ledger that was never written (serial 0) gets a new lineage each time it is opened: two of
  // them are the same empty ledger, as when the first plan of an account is applied in CI.
  const bothUnwritten = saved.basis.ledger_serial === 0 && fresh.basis.ledger_serial === 0;
  if (
    !bothUnwritten &&
    (saved.basis.ledger_lineage !== fresh.basis.ledger_lineage ||
      saved.basis.ledger_serial !== fresh.basis.ledger_serial)
  ) {
    throw new TelformError(
      'plan_stale',
      `${file} is stale: the state changed since it was made (serial ${saved.basis.ledger_serial} then, ${fresh.basis.ledger_serial} now); make a new plan`,
    );
  }
  const stale = staleAddresses(saved, fresh);
  if (stale.length > 0) {
    throw new TelformError(
      'plan_stale',
      `${file} is stale: ${stale.join(', ')} changed since it was made; make a new plan`,
      {
        details: { changed: stale },
      },
    );
  }
}

/** The approvals saved with a plan, widened by those given when applying it. */
export function mergeApprovals(saved: PlanApprovals, flags: PlanApprovals): PlanApprovals {
  return {
    allow_irreversible: [...new Set([...saved.allow_irreversible, ...flags.allow_irreversible])].sort(),
    max_cost_usd: Math.max(saved.max_cost_usd ?? 0, flags.max_cost_usd ?? 0) || null,
    force_deletes: saved.force_deletes || flags.force_deletes,
    allow_empty: saved.allow_empty || flags.allow_empty,
    prune_unmanaged: [...new Set([...saved.prune_unmanaged, ...flags.prune_unmanaged])].sort(),
    max_numbers_affected: Math.max(saved.max_numbers_affected ?? 0, flags.max_numbers_affected ?? 0) || null,
    allow_lint: [...new Set([...(saved.allow_lint ?? []), ...(flags.allow_lint ?? [])])].sort(),
  };
}
