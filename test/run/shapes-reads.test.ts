// Reads in production's shapes that used to stop or unsettle a run: a brand read without brand_type, a 403 on
// the phone-number list read only for a trunk's context, number rows with lower-case statuses and a `+`, and
// `UNREGISTERED` beside a campaign id.
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

const linked = `apiVersion: telform/v1
kind: Brand
metadata:
  name: globex-support
spec:
  profile_uuid: 5eed0000-0000-4000-8000-000000000002
  brand_alias: Globex Support
---
apiVersion: telform/v1
kind: Campaign
metadata:
  name: globex-care
spec:
  brand_id: { ref: globex-support }
  vertical: TECHNOLOGY
  usecase: CUSTOMER_CARE
  description: Replies to support tickets opened by Globex customers through the help centre.
  sample1: "Globex: ticket 5521 is resolved. Reply REOPEN if the problem is back, STOP to opt out."
  sample2: "Globex: an engineer picked up ticket 5521 and will call you today. Reply STOP to opt out."
  message_flow: Customers give a mobile number and tick the SMS updates box when they open a ticket.
  help_message: "Globex Support: visit support.example.com or call 1-800-555-0199."
  optout_message: "Globex Support: you will receive no more ticket messages."
  subscriber_optin: true
  subscriber_optout: true
  subscriber_help: true
  direct_lending: false
  embedded_link: false
  embedded_phone: true
  age_gated: false
  affiliate_marketing: false
---
apiVersion: telform/v1
kind: PhoneNumber
metadata:
  name: care-line
spec:
  number: "+15125550101"
  campaign_id: { ref: globex-care }
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

  it('a number shown UNREGISTERED beside a campaign id is linked, not declined: the applied account converges', async () => {
    run = await startShapedRun({ numberRows: 'unregistered' });
    await run.write('linked.yaml', linked);
    const outcome = await run.apply(['linked.yaml']);
    expect(outcome.status).toBe('applied');
    if (outcome.status === 'applied') expect(outcome.failed, run.notes.join('\n')).toBe(false);
    const plan = await run.plan(['linked.yaml']);
    expect(changeLines(plan)).toEqual([]);
    expect(plan.changes.find((change) => change.address === 'PhoneNumber/care-line')?.reasons).toEqual([]);
  });

  it('import keeps the campaign of a number shown UNREGISTERED beside its campaign id', async () => {
    run = await startShapedRun(
      { numberRows: 'unregistered' },
      {
        seedData: {
          existing: {
            brands: [{ brand_alias: 'legacy', brand_type: 'STANDARD', brand_id: 'BLEG000' }],
            campaigns: [
              { campaign_alias: 'old', registration_status: 'ACTIVE', campaign_id: 'CLEG000', brand_id: 'BLEG000' },
            ],
          },
          numbers: [{ number: '14155550199', campaign_id: 'CLEG000' }],
        },
      },
    );
    const imported = await run.importAll();
    const number = imported.imported.find((item) => item.id === '14155550199');
    const campaign = imported.imported.find((item) => item.id === 'CLEG000');
    expect(campaign).toBeDefined();
    expect(number?.manifestSpec.campaign_id).toEqual({ ref: campaign?.name });
  });
});
