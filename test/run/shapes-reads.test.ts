// Reads in production's shapes that used to stop or unsettle a run: a brand read without brand_type, a 403 on
// the phone-number list read only for a trunk's context, number rows with lower-case statuses and a `+`.
import { afterEach, describe, expect, it } from 'vitest';
import { changeLines, startShapedRun, type ShapedRun } from './shapes-harness.js';

let run: ShapedRun | undefined;
afterEach(async () => {
  await run?.close();
  run = undefined;
});

const trunks = `apiVersion: telform/v1
kind: OriginationUri
metadata:
  name: pbx-uri
spec:
  uri: sip:pbx.example.com:5060
---
apiVersion: telform/v1
kind: Trunk
metadata:
  name: pbx-inbound
spec:
  trunk_direction: inbound
  primary_uri_uuid: { ref: pbx-uri }
`;

describe('reads in production shapes', () => {
  it('a brand read without brand_type is unknown, not the default: the applied account converges', async () => {
    run = await startShapedRun({ brandTypeUnread: true });
    await run.copyExample('examples/full-account');
    const outcome = await run.apply();
    expect(outcome.status).toBe('applied');
    if (outcome.status === 'applied') expect(outcome.failed, run.notes.join('\n')).toBe(false);
    const plan = await run.plan();
    expect(changeLines(plan)).toEqual([]);
    expect(plan.changes.find((change) => change.address === 'Brand/globex-support')?.action).toBe('noop');
  });

  it('a 403 on the phone-number list, read only for a trunk’s numbers, is skipped with one note', async () => {
    run = await startShapedRun({ forbiddenList: 'numbers' });
    await run.write('trunks.yaml', trunks);
    const first = await run.plan(['trunks.yaml']);
    expect(changeLines(first)).toEqual(['OriginationUri/pbx-uri create', 'Trunk/pbx-inbound create']);
    expect(first.warnings.filter((warning) => warning.includes('PhoneNumber'))).toHaveLength(1);
    const outcome = await run.apply(['trunks.yaml']);
    expect(outcome.status).toBe('applied');
    expect(changeLines(await run.plan(['trunks.yaml']))).toEqual([]);
  });

  it('number rows with lower-case link statuses and a + read as the same numbers and links', async () => {
    run = await startShapedRun({ numberRows: 'lower_plus' });
    await run.copyExample('examples/full-account');
    const outcome = await run.apply();
    expect(outcome.status).toBe('applied');
    if (outcome.status === 'applied') expect(outcome.failed, run.notes.join('\n')).toBe(false);
    expect(changeLines(await run.plan())).toEqual([]);
  });
});
