import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { accountEnv } from '../../src/run/accounts.js';
import type { AccountSpec } from '../../src/manifest/accounts-file.js';

const account = (name: string, prefix: string): AccountSpec => ({
  name,
  manifests: [],
  credentials: { authIdEnv: `${prefix}_AUTH_ID`, authTokenEnv: `${prefix}_AUTH_TOKEN` },
  state: `/tmp/${name}.json`,
  workspace: name,
  endpoint: undefined,
  values: new Map(),
  policies: [],
});

describe('accountEnv', () => {
  it("gives one account its credentials and hides every account's credential variables from its manifests", () => {
    const acme = account('acme', 'ACME');
    const globex = account('globex', 'GLOBEX');
    const env = accountEnv(
      {
        ACME_AUTH_ID: 'MAACME',
        ACME_AUTH_TOKEN: 'acme-token',
        GLOBEX_AUTH_ID: 'MAGLOBEX',
        GLOBEX_AUTH_TOKEN: 'globex-token',
        TELFORM_AUTH_TOKEN: 'x',
        PBX_PW: 'pw',
      },
      acme,
      [acme, globex],
    );
    // The hidden names are listed, so a manifest naming one is refused with the reason.
    expect(env).toEqual({
      TELFORM_AUTH_ID: 'MAACME',
      TELFORM_AUTH_TOKEN: 'acme-token',
      PBX_PW: 'pw',
      TELFORM_CREDENTIAL_VARIABLES: 'ACME_AUTH_ID,ACME_AUTH_TOKEN,GLOBEX_AUTH_ID,GLOBEX_AUTH_TOKEN',
      // Every account's token as a digest, never the value: a secret equal to one is refused.
      TELFORM_AUTH_TOKEN_DIGESTS: JSON.stringify([
        {
          variable: 'ACME_AUTH_TOKEN',
          account: 'acme',
          sha256: createHash('sha256').update('acme-token').digest('hex'),
        },
        {
          variable: 'GLOBEX_AUTH_TOKEN',
          account: 'globex',
          sha256: createHash('sha256').update('globex-token').digest('hex'),
        },
      ]),
    });
  });
});
