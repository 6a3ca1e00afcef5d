import { describe, expect, it } from 'vitest';
import { describeOrigin } from '../../src/render/history.js';
import { escapeHtml, escapeMarkdown } from '../../src/render/markdown-escape.js';
import { renderMarkdown } from '../../src/render/markdown.js';
import { change, plan } from '../support/plan.js';

// A pull-request comment must not ping anyone: `@org/team` or `@someone` written in a live object's
// name or description, or in a CI variable, is shown but no longer a mention (issue 46 item 8).
describe('mentions in markdown', () => {
  it('are broken by a zero-width space after the @, in markdown and in HTML text', () => {
    expect(escapeMarkdown('ping @acme/admins and @bob')).toBe('ping @&#8203;acme/admins and @&#8203;bob');
    expect(escapeHtml('(@acme/admins)')).toBe('(@&#8203;acme/admins)');
  });

  it('leaves an address such as ops@example.com as it is (no mention there)', () => {
    expect(escapeMarkdown('mail ops@example.com')).toBe('mail ops@example.com');
  });

  it('never reach a plan comment from a reason or a CI actor', () => {
    const output = renderMarkdown(
      plan([
        change({
          address: 'Campaign/promo',
          action: 'delete',
          reasons: ['live description says: call @acme/admins'],
        }),
      ]),
    );
    expect(output).not.toMatch(/(^|[^\w&;])@acme\/admins/m);
    expect(output).toContain('@&#8203;acme/admins');
    expect(escapeMarkdown(describeOrigin({ actor: '@acme/admins' }))).toBe('by @&#8203;acme/admins');
  });
});
