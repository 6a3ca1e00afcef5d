import { describe, expect, it } from 'vitest';
import { headline } from '../../src/render/accounts.js';
import type { AccountsReport } from '../../src/render/accounts-report.js';

/** The headline of an apply in waves counts its waves in good grammar (issue 33 item 31). */

const report = (waves: number): AccountsReport => ({
  format_version: 1,
  command: 'apply',
  exit_code: 0,
  accounts: [{ name: 'acme', exit_code: 0, status: 'applied', summary: 'Apply complete.' }],
  rollout: {
    resumed: false,
    waves: Array.from({ length: waves }, (_, index) => ({
      wave: index + 1,
      accounts: ['acme'],
      status: 'passed' as const,
    })),
  },
});

describe('the rollout headline', () => {
  it('says "1 wave" and "2 waves"', () => {
    expect(headline(report(1))).toBe('telform apply: 1 account: 1 applied. Rollout of 1 wave complete. Exit code 0.');
    expect(headline(report(2))).toBe('telform apply: 1 account: 1 applied. Rollout of 2 waves complete. Exit code 0.');
  });
});

describe('the accounts headline', () => {
  it('says "1 error" and "3 errors"', () => {
    const accounts = (errors: number): AccountsReport => ({
      format_version: 1,
      command: 'plan',
      exit_code: 1,
      accounts: [
        ...Array.from({ length: errors }, (_, index) => ({
          name: `broken-${index}`,
          exit_code: 1,
          status: 'error',
          summary: 'invalid manifests',
        })),
        { name: 'fine', exit_code: 0, status: 'no_changes', summary: 'No changes.' },
      ],
    });
    expect(headline(accounts(1))).toBe('telform plan: 2 accounts: 1 error, 1 no changes. Exit code 1.');
    expect(headline(accounts(3))).toBe('telform plan: 4 accounts: 3 errors, 1 no changes. Exit code 1.');
  });
});
