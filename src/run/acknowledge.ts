// `telform acknowledge ADDRESS` as an operation (docs/approvals.md): the drift of one resource, as a
// read-only drift check sees it now, acknowledged by a person of the people file for a while, with a
// reason: signed with their key and appended to the state's history, where `drift` and serve find it.
import type { Clock } from '../util/clock.js';
import { TelformError } from '../util/errors.js';
import { loadApprovalPolicy } from '../manifest/approval-policy.js';
import { stableJson } from '../util/stable-json.js';
import { verifySshSignature } from '../util/ssh-signature.js';
import { signMessage } from './approval-files.js';
import type { GlobalOptions, RunContext } from './context.js';
import { driftFingerprint } from './drift-acks.js';
import { driftOf } from './drift.js';
import { runOrigin } from './history-origin.js';
import { approvalsFrom, reconcile, withReconciliation } from './reconcile.js';
import { openState } from './state-location.js';

const ackNamespace = 'telform-drift-ack';

interface AcknowledgeRequest {
  paths: string[];
  address: string;
  reason: string;
  ttlMs: number;
  person: string;
  keyFile: string;
  policies: readonly string[];
  clock: Clock;
}

/** The message an acknowledgement signs: its fields but the signature, as canonical JSON. */
function acknowledgementMessage(ack: Record<string, unknown>): string {
  const { signature: _signature, ...signed } = ack;
  return stableJson(signed);
}

export async function acknowledgeDrift(
  request: AcknowledgeRequest,
  globals: GlobalOptions,
  context: RunContext,
): Promise<{ seq: number; until: string; fingerprint: string }> {
  const policy = await loadApprovalPolicy(request.policies, context.io.cwd);
  const person = policy.people?.people.find((candidate) => candidate.name === request.person);
  if (!person)
    throw new TelformError(
      'bad_option',
      `--as ${request.person}: not in the people file${policy.people ? ` ${policy.people.file}` : ' (the policy names none: people: people.yaml)'}`,
    );
  const run = await reconcile({ paths: request.paths }, globals, approvalsFrom({}), context, {
    lock: false,
    readOnly: true,
  });
  const { account, fingerprint } = await withReconciliation(run, async () => {
    const { report } = driftOf(run);
    const change = run.plan.changes.find((item) => item.address === request.address);
    if (!change || !report.drifted.includes(request.address))
      throw new TelformError(
        'bad_option',
        `${request.address} has not drifted, so there is nothing to acknowledge${report.drifted.length > 0 ? ` (drifted: ${report.drifted.join(', ')})` : ''}`,
      );
    return { account: run.session.account, fingerprint: driftFingerprint(change) };
  });
  const now = request.clock.now();
  const payload = {
    format: 'telform-drift-ack/v1',
    account,
    address: request.address,
    fingerprint,
    reason: request.reason,
    person: person.name,
    signed_at: new Date(now).toISOString(),
    until: new Date(now + request.ttlMs).toISOString(),
  };
  const signature = await signMessage(acknowledgementMessage(payload), ackNamespace, request.keyFile, context.io.cwd);
  const checked = verifySshSignature(signature, acknowledgementMessage(payload), ackNamespace);
  if (!checked.ok || policy.people?.byFingerprint.get(checked.key.fingerprint) !== person)
    throw new TelformError(
      'approval_invalid',
      `--key ${request.keyFile} is not one of ${person.name}'s keys in ${policy.people?.file ?? 'the people file'}`,
    );
  const store = await openState(globals, context.io.env, { lock: true, notify: context.io.stderr });
  try {
    const record = await store.appendHistory({
      type: 'drift_ack',
      ack: { ...payload, signature },
      origin: await runOrigin(context.io.env, context.io.cwd, request.paths),
    });
    return { seq: record.seq, until: payload.until, fingerprint };
  } finally {
    await store.close();
  }
}
