import { describe, expect, it } from 'vitest';
import { Fleet } from '../../src/serve/fleet.js';
import { escapeHtml, html } from '../../src/serve/html.js';
import type { AccountCheck } from '../../src/serve/model.js';
import { renderAccountPage, renderFleetPage } from '../../src/serve/status-page.js';

const hostile = 'Declined <script>alert(1)</script> "x" \u202eevil\u0007';

function fleetWithHostileText(): Fleet {
  const fleet = new Fleet(['acme', 'zeta']);
  const check: AccountCheck = {
    status: 'drifted',
    drifted: ['Trunk/pbx-out'],
    pending: [],
    notes: [`Campaign/promo was declined by the registry (${hostile})`],
    registry: [{ address: 'Campaign/promo', kind: 'Campaign', id: 'CAB12CD', status: 'ACTIVE' }],
    plan: [
      {
        address: 'Trunk/pbx-out',
        action: 'update',
        drifted: true,
        reasons: [`name changed outside telform to ${hostile}`],
      },
    ],
    requests: 5,
    rateLimited: 0,
  };
  const events = fleet.recordCheck('acme', check, fleet.beginObservation(), 'start');
  const read = fleet.beginObservation();
  events.push(
    ...fleet.recordRegistry(
      'acme',
      { address: 'Campaign/promo', kind: 'Campaign', id: 'CAB12CD', status: 'FAILED', reason: hostile },
      read,
      'callback',
    ),
  );
  events.forEach((draft, index) =>
    fleet.remember({ ...draft, id: `r-${index}`, at: '2026-01-01T00:00:05.000Z' } as never),
  );
  const view = fleet.account('acme');
  view.lastRunAt = Date.UTC(2026, 0, 1, 0, 0, 0);
  view.nextRunAt = Date.UTC(2026, 0, 1, 0, 5, 0);
  return fleet;
}

describe('status page', () => {
  it('escapes HTML and shows control and bidi characters as escapes', () => {
    expect(escapeHtml(hostile)).toBe('Declined &lt;script&gt;alert(1)&lt;/script&gt; &quot;x&quot; \\u202eevil\\u0007');
    expect(html`<p title="${'"><b>'}">${'<i>'}</p>`.text).toBe('<p title="&quot;&gt;&lt;b&gt;">&lt;i&gt;</p>');
  });

  it('renders the fleet table and an account page without a raw tag or invisible character from the account', () => {
    const fleet = fleetWithHostileText();
    const context = { fleet, now: Date.UTC(2026, 0, 1, 0, 1, 0), applyMode: 'safe', version: '0.1.0' };
    const fleetPage = renderFleetPage(context);
    const accountPage = renderAccountPage(context, 'acme') ?? '';
    for (const page of [fleetPage, accountPage]) {
      expect(page).not.toContain('<script>');
      expect(page).not.toMatch(/[\u202e\u0007]/);
    }
    expect(fleetPage).toContain('<td><a href="/accounts/acme">acme</a></td>');
    expect(fleetPage).toContain('<span class="status drifted">drifted</span>');
    expect(fleetPage).toContain('<time datetime="2026-01-01T00:00:00.000Z">60 s ago</time>');
    expect(fleetPage).toContain('<time datetime="2026-01-01T00:05:00.000Z">in 4 min</time>');
    expect(fleetPage).toContain('<div>1 × Campaign FAILED</div>');
    expect(fleetPage).toContain('2 accounts: 1 drifted, 1 unknown. Apply: safe.');
    expect(accountPage).toContain(
      '<code>Campaign/promo</code> ACTIVE → FAILED (Declined &lt;script&gt;alert(1)&lt;/script&gt; &quot;x&quot; \\u202eevil\\u0007)',
    );
    expect(accountPage).toContain('<tr><td><code>Trunk/pbx-out</code></td><td>update</td><td>yes</td>');
    expect(renderAccountPage(context, 'nobody')).toBeUndefined();
    expect(renderAccountPage(context, 'zeta')).toContain('Not checked yet.');
  });
});
