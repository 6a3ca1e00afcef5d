import { describe, expect, it } from 'vitest';
import { productionEndpoint, resolveConnection } from '../../src/api/connection.js';
import { ConnectionConfigError } from '../../src/api/errors.js';

const credentials = { TELFORM_AUTH_ID: 'MAID', TELFORM_AUTH_TOKEN: 'token-value' };

describe('resolveConnection', () => {
  it('uses production when credentials are set and no endpoint is', () => {
    expect(resolveConnection({ env: credentials })).toEqual({
      kind: 'remote',
      baseUrl: productionEndpoint,
      credentials: { authId: 'MAID', authToken: 'token-value' },
      credentialSource: 'TELFORM',
    });
  });

  it('falls back to PLIVO_ variables', () => {
    const target = resolveConnection({ env: { PLIVO_AUTH_ID: 'P', PLIVO_AUTH_TOKEN: 'T' } });
    expect(target).toMatchObject({
      kind: 'remote',
      credentials: { authId: 'P', authToken: 'T' },
      credentialSource: 'PLIVO',
    });
  });

  it('uses the embedded emulator with neither endpoint nor credentials', () => {
    expect(resolveConnection({ env: {} })).toEqual({ kind: 'local', reason: 'no-credentials' });
  });

  it('refuses the implicit emulator under CI', () => {
    expect(() => resolveConnection({ env: { CI: 'true' } })).toThrow(ConnectionConfigError);
    expect(() => resolveConnection({ env: { CI: 'true' } })).toThrow(/--endpoint local/);
    expect(resolveConnection({ endpointFlag: 'local', env: { CI: 'true' } })).toEqual({
      kind: 'local',
      reason: 'requested',
    });
  });

  it('takes the endpoint from the flag before TELFORM_ENDPOINT, trimming a trailing slash', () => {
    const target = resolveConnection({
      endpointFlag: 'http://127.0.0.1:9000/',
      env: { ...credentials, TELFORM_ENDPOINT: 'http://127.0.0.1:1/' },
    });
    expect(target).toMatchObject({ kind: 'remote', baseUrl: 'http://127.0.0.1:9000' });
    expect(resolveConnection({ env: { ...credentials, TELFORM_ENDPOINT: 'http://127.0.0.1:1' } })).toMatchObject({
      baseUrl: 'http://127.0.0.1:1',
    });
  });

  it('says which credential is missing, without printing the one that is set', () => {
    expect(() => resolveConnection({ env: { TELFORM_AUTH_ID: 'MAID' } })).toThrow(
      'TELFORM_AUTH_TOKEN is not set while TELFORM_AUTH_ID is: set both',
    );
    let message = '';
    try {
      resolveConnection({ env: { TELFORM_AUTH_TOKEN: 'super-secret-token' } });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toBe('TELFORM_AUTH_ID is not set while TELFORM_AUTH_TOKEN is: set both');
  });

  it('refuses an endpoint without credentials, a non-URL and credentials in the URL', () => {
    expect(() => resolveConnection({ endpointFlag: 'http://127.0.0.1:9000', env: {} })).toThrow(
      /no API credentials for/,
    );
    expect(() => resolveConnection({ endpointFlag: 'not a url', env: credentials })).toThrow(/is not a URL/);
    expect(() => resolveConnection({ endpointFlag: 'ftp://x', env: credentials })).toThrow(/http or https/);
    expect(() => resolveConnection({ endpointFlag: 'http://a:b@127.0.0.1', env: credentials })).toThrow(
      /must not carry credentials/,
    );
  });
});
