import { describe, expect, it } from 'vitest';
import { renderText } from '../../src/render/text.js';
import { change, plan } from '../support/plan.js';

const sample = plan([
  change({ address: 'TrunkIpAcl/office', action: 'create', after: { name: 'office', ip_addresses: ['203.0.113.10'] } }),
  change({
    address: 'Trunk/pbx-out',
    action: 'update',
    id: '123',
    before: { secure: false, ip_addresses: { '10.0.0.1': '10.0.0.1' } },
    patch: [
      { op: 'replace', path: '/secure', value: true },
      { op: 'add', path: '/ip_addresses/10.0.0.2', value: '10.0.0.2' },
    ],
    secrets: { password: { value: 'unverifiable' } },
    secret_sources: { password: { fromEnv: 'PBX_PW' } },
  }),
  change({
    address: 'Campaign/promo',
    action: 'delete',
    id: 'CABC123',
    reasons: ['removed from the manifests'],
    flags: { billable_usd: 0, irreversible: true, breaks_auth: false, breaks_calls: false, needs_unassign: false },
  }),
  change({ address: 'SipCredential/ok', action: 'noop', id: 'u1' }),
]);

describe('renderText', () => {
  it('renders grouped changes, changed fields only, and the summary line', () => {
    expect(renderText(sample, { color: false })).toBe(
      [
        '  # TrunkIpAcl/office will be created',
        '  + TrunkIpAcl/office',
        '      + name = "office"',
        '      + ip_addresses = ["203.0.113.10"]',
        '',
        '  # Trunk/pbx-out will be updated in place',
        '  ~ Trunk/pbx-out (id 123)',
        '      ~ secure: false → true',
        '      + ip_addresses["10.0.0.2"] = "10.0.0.2"',
        '      ~ password = (sensitive, from env PBX_PW) will be set (cannot be compared)',
        '',
        '  # Campaign/promo will be deleted [irreversible]',
        '  #   removed from the manifests',
        '  - Campaign/promo (id CABC123)',
        '',
        'Plan: 1 to create, 1 to update, 0 to replace, 1 to delete. Cost: 0 USD. Irreversible: 1.',
        'API requests to apply: about 4.',
        '',
      ].join('\n'),
    );
  });

  it('says so when nothing changes, and colours only when asked', () => {
    const empty = plan([change({ address: 'SipCredential/ok', action: 'noop' })]);
    expect(renderText(empty, { color: false })).toContain('No changes. The account matches the manifests.\n');
    expect(renderText(empty, { color: false })).not.toContain('\u001b[');
    expect(renderText(sample, { color: true })).toContain('\u001b[32m+\u001b[0m');
  });

  it('counts adoptions in the summary line, and shows the registry polls of --wait as a range', () => {
    const adopting = plan([
      change({ address: 'TrunkIpAcl/by-hand', action: 'adopt', id: 'a1', api_requests: 0 }),
      change({ address: 'TrunkIpAcl/other', action: 'adopt', id: 'a2', api_requests: 0 }),
      change({ address: 'Campaign/promo', action: 'wait', api_requests: 0 }),
    ]);
    const text = renderText(adopting, { color: false, waitMs: 120_000 });
    expect(text).toContain(
      'Plan: 0 to create, 0 to update, 0 to replace, 0 to delete, 2 to adopt. Cost: 0 USD. Irreversible: 0.\n',
    );
    // One waiting change polls at 0, 1, 3, 7, 15, 31, 61 and 91 s within 2 minutes, then creates.
    expect(text).toContain('API requests to apply: about 0; with --wait 2m, 1 to 9 (registry polls).\n');
  });
});
