import { describe, expect, it } from 'vitest';
import { parseAccountsFile } from '../../src/manifest/accounts-file.js';

const parse = (text: string) => parseAccountsFile(text, 'accounts.yaml', '/repo/ops');

describe('accounts file', () => {
  it('resolves paths against its folder, fills defaults, and keeps URLs and workspaces', () => {
    const accounts = parse(`
defaults:
  state: states/{account}.json
  endpoint: https://api.example.test
accounts:
  - name: acme
    manifests: acme/
    credentials: { auth_id_env: ACME_ID, auth_token_env: ACME_TOKEN }
  - name: beta
    manifests: [/abs/beta, shared]
    credentials: { auth_id_env: BETA_ID, auth_token_env: BETA_TOKEN }
    state: postgres://telform@db:5432/telform
    endpoint: http://127.0.0.1:9
`);
    expect(accounts).toEqual([
      {
        name: 'acme',
        manifests: ['/repo/ops/acme'],
        credentials: { authIdEnv: 'ACME_ID', authTokenEnv: 'ACME_TOKEN' },
        state: '/repo/ops/states/acme.json',
        workspace: 'acme',
        endpoint: 'https://api.example.test',
        values: new Map(),
        policies: [],
      },
      {
        name: 'beta',
        manifests: ['/abs/beta', '/repo/ops/shared'],
        credentials: { authIdEnv: 'BETA_ID', authTokenEnv: 'BETA_TOKEN' },
        state: 'postgres://telform@db:5432/telform',
        workspace: 'beta',
        endpoint: 'http://127.0.0.1:9',
        values: new Map(),
        policies: [],
      },
    ]);
  });

  it('takes policy files from the defaults, then the account, resolved against its folder', () => {
    const [acme, beta] = parse(`
defaults:
  state: states/{account}.json
  policies: policies/telecom.yaml
accounts:
  - name: acme
    manifests: acme/
    credentials: { auth_id_env: ACME_ID, auth_token_env: ACME_TOKEN }
    policies: [acme/strict.yaml, /etc/telform/extra.yaml]
  - name: beta
    manifests: beta/
    credentials: { auth_id_env: BETA_ID, auth_token_env: BETA_TOKEN }
`);
    expect(acme?.policies).toEqual([
      '/repo/ops/policies/telecom.yaml',
      '/repo/ops/acme/strict.yaml',
      '/etc/telform/extra.yaml',
    ]);
    expect(beta?.policies).toEqual(['/repo/ops/policies/telecom.yaml']);
  });

  it('names the place of a mistake', () => {
    const credentials = 'credentials: { auth_id_env: A, auth_token_env: B }';
    expect(() =>
      parse(
        `accounts:\n  - name: a\n    manifests: m\n    credentials: { auth_id_env: A, auth_token_env: 1x }\n    state: s`,
      ),
    ).toThrow('accounts.0.credentials.auth_token_env: expected the name of an environment variable, e.g. ACME_AUTH_ID');
    expect(() =>
      parse(
        `accounts:\n  - { name: a, manifests: m, ${credentials}, state: s }\n  - { name: a, manifests: m, ${credentials}, state: s }`,
      ),
    ).toThrow('accounts.1.name: "a" is listed twice');
    try {
      parse(`accounts:\n  - name: a\n    manifests: m\n    ${credentials}`);
      expect.unreachable();
    } catch (error) {
      expect(error).toMatchObject({
        message: 'accounts.0: account "a" has no state (give state, or defaults.state)',
        place: { source: { file: 'accounts.yaml', line: 2, column: 5 } },
      });
    }
    expect(() => parse('accounts: [')).toThrow(/not valid YAML/);
  });
});
