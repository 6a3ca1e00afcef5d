// Signed approvals of a saved plan (docs/approvals.md): one JSON file per approval in a folder beside
// the plan (`plan.json` → `plan.approvals/`), so reviewers of a pull request each commit their own file
// and never edit the same one. An approval is an SSH signature (namespace `telform-approval`) over
// the canonical JSON of what it says: this plan's digest, the account, the person, the rules approved,
// when it was signed and any emergency reason. The plan file itself is never touched (its seal holds).
import { createHash } from 'node:crypto';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Plan } from '../engine/plan-types.js';
import type { People, Person } from '../manifest/people-file.js';
import { TelformError } from '../util/errors.js';
import { stableJson } from '../util/stable-json.js';
import { readSshPrivateKey, signSsh, verifySshSignature } from '../util/ssh-signature.js';
import { writeAtomically } from '../util/atomic-file.js';

const approvalNamespace = 'telform-approval';
const formatTag = 'telform-approval/v1';

/** What a person signs. */
export interface ApprovalPayload {
  format: typeof formatTag;
  plan_digest: string;
  account: string;
  person: string;
  /** The approval rules approved (ids). */
  rules: string[];
  /** ISO 8601, UTC: the TTL counts from here. */
  signed_at: string;
  /** Given with `approve --emergency REASON`: lets `apply --emergency REASON` past a window or freeze. */
  emergency?: string;
}

export interface ApprovalFile extends ApprovalPayload {
  /** Armored SSH signature over `stableJson(payload)`. */
  signature: string;
}

export interface VerifiedApproval {
  file: string;
  approval: ApprovalFile;
  person: Person;
  key: string;
  signedMs: number;
}

export interface RejectedApproval {
  file: string;
  reason: string;
}

/**
 * The digest an approval signs: sha256 of the plan's canonical JSON without its seal and without
 * `created_at`, so the same plan made again from unchanged manifests and an unchanged account (the
 * pipeline plans again when a reviewer commits an approval) is the same plan, and anything else is not;
 * and without `approval_rules`, the table of who signed so far that a plan made again shows.
 */
export function approvalDigest(plan: Plan): string {
  const { seal: _seal, created_at: _created, approval_rules: _table, ...content } = plan;
  return createHash('sha256')
    .update(stableJson(JSON.parse(JSON.stringify(content))))
    .digest('hex');
}

/** `plan.json` → `plan.approvals` (beside it). */
export function approvalsFolderOf(planFile: string): string {
  return planFile.replace(/\.json$/i, '') + '.approvals';
}

export function approvalMessage(payload: ApprovalPayload): string {
  const { format, plan_digest, account, person, rules, signed_at, emergency } = payload;
  return stableJson({ format, plan_digest, account, person, rules, signed_at, ...(emergency ? { emergency } : {}) });
}

/** Every `*.json` of the folder as an approval (a folder that does not exist holds none). */
export async function readApprovals(folder: string, cwd: string): Promise<Array<{ file: string; content: unknown }>> {
  const absolute = path.resolve(cwd, folder);
  const names = await readdir(absolute).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [] as string[];
    throw new TelformError(
      'approval_invalid',
      `${folder}: the approvals cannot be read (${error.code ?? error.message})`,
    );
  });
  const found: Array<{ file: string; content: unknown }> = [];
  for (const name of names.filter((entry) => entry.endsWith('.json')).sort()) {
    const file = path.join(folder, name);
    const text = await readFile(path.join(absolute, name), 'utf8');
    let content: unknown;
    try {
      content = JSON.parse(text);
    } catch {
      content = undefined;
    }
    found.push({ file, content });
  }
  return found;
}

/** Checks one approval file against this plan and the people file; the approval, or why it does not count. */
export function verifyApproval(
  file: string,
  content: unknown,
  expected: { digest: string; account: string },
  people: People | undefined,
  nowMs: number,
): VerifiedApproval | RejectedApproval {
  const approval = content as Partial<ApprovalFile> | undefined;
  if (
    !approval ||
    approval.format !== formatTag ||
    typeof approval.plan_digest !== 'string' ||
    typeof approval.person !== 'string' ||
    typeof approval.signature !== 'string' ||
    typeof approval.signed_at !== 'string' ||
    !Array.isArray(approval.rules)
  )
    return { file, reason: 'it is not a telform approval (made by telform approve)' };
  if (approval.plan_digest !== expected.digest)
    return {
      file,
      reason: `it was signed over another plan (digest ${approval.plan_digest.slice(0, 12)}…), not this one`,
    };
  if (approval.account !== expected.account)
    return { file, reason: `it approves a plan of account ${String(approval.account)}` };
  const checked = verifySshSignature(approval.signature, approvalMessage(approval as ApprovalFile), approvalNamespace);
  if (!checked.ok) return { file, reason: `its signature is not valid: ${checked.reason}` };
  const person = people?.byFingerprint.get(checked.key.fingerprint);
  if (!person)
    return {
      file,
      reason: `it was signed by the key ${checked.key.fingerprint}, which is not in ${people?.file ?? 'a people file (the policy names none)'}`,
    };
  if (person.name !== approval.person)
    return { file, reason: `it says ${approval.person} but was signed with ${person.name}'s key` };
  const signedMs = Date.parse(approval.signed_at);
  if (Number.isNaN(signedMs)) return { file, reason: 'its signed_at is not a time' };
  // A little skew between machines is allowed; an approval dated ahead would stretch its TTL.
  if (signedMs > nowMs + 5 * 60_000) return { file, reason: `it is dated ${approval.signed_at}, in the future` };
  return { file, approval: approval as ApprovalFile, person, key: checked.key.fingerprint, signedMs };
}

export function isVerified(item: VerifiedApproval | RejectedApproval): item is VerifiedApproval {
  return 'approval' in item;
}

const run = promisify(execFile);

/**
 * Signs a payload with a private key file: in process for an Ed25519 key telform reads (PEM, or an
 * unencrypted OpenSSH key), else with `ssh-keygen -Y sign` (an encrypted key, RSA, ECDSA; the agent).
 */
export async function signApproval(payload: ApprovalPayload, keyFile: string, cwd: string): Promise<ApprovalFile> {
  return { ...payload, signature: await signMessage(approvalMessage(payload), approvalNamespace, keyFile, cwd) };
}

/** An armored SSH signature of `message` in `namespace` with the key file (in process, else ssh-keygen). */
export async function signMessage(message: string, namespace: string, keyFile: string, cwd: string): Promise<string> {
  const absolute = path.resolve(cwd, keyFile);
  const text = await readFile(absolute, 'utf8').catch((error: NodeJS.ErrnoException) => {
    throw new TelformError('approval_invalid', `--key ${keyFile} cannot be read (${error.code ?? error.message})`);
  });
  const key = readSshPrivateKey(text);
  if (key) return signSsh(message, namespace, key);
  const folder = await mkdtemp(path.join(tmpdir(), 'telform-approve-'));
  try {
    const messageFile = path.join(folder, 'message');
    await writeFile(messageFile, message);
    await run('ssh-keygen', ['-Y', 'sign', '-q', '-f', absolute, '-n', namespace, messageFile]).catch(
      (error: NodeJS.ErrnoException & { stderr?: string }) => {
        throw new TelformError(
          'approval_invalid',
          error.code === 'ENOENT'
            ? `--key ${keyFile} is not an unencrypted Ed25519 key telform signs with, and ssh-keygen (OpenSSH) is not installed to sign with it`
            : `ssh-keygen could not sign with ${keyFile}: ${(error.stderr ?? error.message).trim().split('\n')[0] ?? ''}`,
        );
      },
    );
    return await readFile(`${messageFile}.sig`, 'utf8');
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

/** Writes `FOLDER/PERSON-DIGEST12.json` (one per person and plan: signing again replaces it). */
export async function writeApproval(folder: string, approval: ApprovalFile, cwd: string): Promise<string> {
  const name = `${approval.person}-${approval.plan_digest.slice(0, 12)}.json`;
  await mkdir(path.resolve(cwd, folder), { recursive: true });
  const file = path.join(folder, name);
  await writeAtomically(path.resolve(cwd, file), `${JSON.stringify(approval, null, 2)}\n`);
  return file;
}
