import { describe, expect, it } from 'vitest';
import { redactSecrets } from '../../src/api/redact.js';

describe('redactSecrets', () => {
  it('replaces secret-named fields at any depth and keeps the rest', () => {
    expect(
      redactSecrets({
        username: 'pbx',
        password: 'Hunter2Hunter2',
        nested: [{ Password: 'x', auth_token: 'y', name: 'n' }],
        unset_password: null,
      }),
    ).toEqual({
      username: 'pbx',
      password: '(sensitive)',
      nested: [{ Password: '(sensitive)', auth_token: '(sensitive)', name: 'n' }],
      unset_password: null,
    });
  });
});
