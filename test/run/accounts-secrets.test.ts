import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountsReportProblem } from '../../src/render/accounts-report-schema.js';
import { planStep } from '../../src/run/account-steps.js';
import { runAccounts } from '../../src/run/accounts.js';
import { approvalsFrom } from '../../src/run/reconcile.js';
import { accounts, documentOf, startHarness, type Harness } from './harness.js';

/**
 * In an accounts run, a secret is compared with the auth token of every account of the file, not
 * only the account's own, and the refusal names the account and the variable the user set
 * (issue 33 item 17).
 */

let harness: Harness;
const env = {
  ONE_ID: accounts[0].authId,
  ONE_TOKEN: accounts[0].authToken,
  TWO_ID: accounts[1].authId,
  TWO_TOKEN: accounts[1].authToken,
};

beforeAll(async () => {
  harness = await startHarness();
  await harness.write('two-token.txt', `${accounts[1].authToken}\n`);
  await harness.write('own-token.txt', `${accounts[0].authToken}\n`);
  await harness.write(
    'creds.yaml',
    [
      documentOf('TrunkCredential', 'borrowed', { username: 'borrowed', password: { fromFile: 'two-token.txt' } }),
      documentOf('TrunkCredential', 'own', { username: 'ownuser', password: { fromFile: 'own-token.txt' } }),
    ].join('\n---\n'),
  );
  await harness.write('empty.yaml', documentOf('TrunkIpAcl', 'office', { ip_addresses: ['203.0.113.9'] }));
  await harness.write(
    'accounts.yaml',
    JSON.stringify({
      defaults: { state: 'states/{account}.json', endpoint: harness.emulator.url },
      accounts: [
        { name: 'one', manifests: ['creds.yaml'], credentials: { auth_id_env: 'ONE_ID', auth_token_env: 'ONE_TOKEN' } },
        { name: 'two', manifests: ['empty.yaml'], credentials: { auth_id_env: 'TWO_ID', auth_token_env: 'TWO_TOKEN' } },
      ],
    }),
  );
});
afterAll(async () => {
  await harness.close();
});

describe('secrets in an accounts run', () => {
  it("refuses another account's token as a secret value, and names the variable the user set for the account's own", async () => {
    const report = await runAccounts(
      {
        command: 'plan',
        accountsFile: 'accounts.yaml',
        only: [],
        accountParallelism: 1,
        globals: {},
        approvals: approvalsFrom({}),
        lock: false,
        step: planStep({}),
      },
      harness.context(env),
    );
    const one = report.accounts.find((account) => account.name === 'one');
    expect(one?.status).toBe('error');
    expect(one?.problems).toEqual([
      expect.stringContaining(
        'TrunkCredential/borrowed  spec.password: the content of two-token.txt equals the API auth token of account two (TWO_TOKEN), which is never sent as a secret',
      ),
      expect.stringContaining(
        'TrunkCredential/own  spec.password: the content of own-token.txt equals the API auth token of account one (ONE_TOKEN), which is never sent as a secret',
      ),
    ]);
    expect(report.accounts.find((account) => account.name === 'two')?.status).toBe('changes');
    expect(accountsReportProblem(JSON.parse(JSON.stringify(report)))).toBeUndefined();
  });
});
