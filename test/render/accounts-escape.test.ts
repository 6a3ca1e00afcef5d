import { describe, expect, it } from 'vitest';
import { renderAccountsMarkdown, renderAccountsText } from '../../src/render/accounts.js';
import type { AccountsReport } from '../../src/render/accounts-report.js';
import { renderDriftMarkdown } from '../../src/render/drift.js';
import { escapeMarkdown } from '../../src/render/markdown-escape.js';
import { renderMarkdown } from '../../src/render/markdown.js';
import { change, plan } from '../support/plan.js';

const hostile =
  'telform-owner:x <a href="https://evil.example">Approve</a><img src=x> [ok](https://evil.example) | *b*';

function report(): AccountsReport {
  return {
    format_version: 1,
    command: 'plan',
    exit_code: 1,
    accounts: [
      {
        name: 'acme <b>x</b>\u202e',
        exit_code: 1,
        status: 'error',
        summary: `error: ${hostile}`,
        error: { code: 'api_error', message: hostile },
        problems: [hostile],
      },
    ],
  };
}

describe('markdown reports escape live and report-file text (issue 33 items 3 and 23)', () => {
  it('an accounts report in markdown renders no tag, link, image or table break from a name or message', () => {
    const text = renderAccountsMarkdown(report());
    expect(text).not.toMatch(/<a |<img|<b>|[^\\]\]\(/);
    expect(text).toContain(
      '| acme &lt;b&gt;x&lt;/b&gt;\\\\u202e | error | error: telform-owner:x &lt;a href=&quot;https://evil.example&quot;&gt;Approve&lt;/a&gt;&lt;img src=x&gt; \\[ok\\](https://evil.example) \\| \\*b\\* |',
    );
    expect(text).toContain('<details><summary>acme &lt;b&gt;x&lt;/b&gt;\\u202e: error</summary>');
    expect(text).toContain('**error:** telform-owner:x &lt;a href=');
  });

  it('report show prints account names from a report file with controls escaped (text)', () => {
    const text = renderAccountsText(report());
    expect(text).not.toContain('\u202e');
    expect(text).toContain('== acme <b>x</b>\\u202e (error) ==');
  });

  it('drift notes and plan warnings in markdown are escaped', () => {
    const drift = renderDriftMarkdown({ status: 'drifted', drifted: [], pending: [], notes: [hostile] });
    expect(drift).toContain(`> ${escapeMarkdown(hostile)}`);
    expect(drift).not.toMatch(/<a |<img/);
    const planText = renderMarkdown(
      plan([change({ address: 'SipIpAcl/x', action: 'update', reasons: [hostile] })], { warnings: [`# ${hostile}`] }),
    );
    expect(planText).not.toMatch(/<a |<img|[^\\]\]\(/);
    expect(planText).toContain('> \\# telform-owner:x &lt;a href=');
  });

  it('escapeMarkdown keeps plain words as they are and escapes a leading list or heading marker', () => {
    expect(escapeMarkdown('removed from the manifests (Trunk/pbx)')).toBe('removed from the manifests (Trunk/pbx)');
    expect(escapeMarkdown('1. first')).toBe('1\\. first');
    expect(escapeMarkdown('- item')).toBe('\\- item');
  });
});
