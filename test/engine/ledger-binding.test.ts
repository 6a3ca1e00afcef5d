import { describe, expect, it } from 'vitest';
import { sameEndpoint } from '../../src/state/ledger.js';

describe('sameEndpoint', () => {
  it('takes every name of this machine for one host, on the same scheme, port and path', () => {
    expect(sameEndpoint('http://127.0.0.1:4010', 'http://localhost:4010')).toBe(true);
    expect(sameEndpoint('http://127.0.0.1:4010', 'http://[::1]:4010/')).toBe(true);
    expect(sameEndpoint('http://localhost:4010', 'http://127.0.0.2:4010')).toBe(true);
    expect(sameEndpoint('http://127.0.0.1:4010', 'http://localhost:4011')).toBe(false);
    expect(sameEndpoint('http://127.0.0.1:4010', 'https://localhost:4010')).toBe(false);
    expect(sameEndpoint('https://api.example.com', 'https://127.0.0.1')).toBe(false);
    expect(sameEndpoint('local', 'local')).toBe(true);
    expect(sameEndpoint('local', 'http://127.0.0.1:4010')).toBe(false);
  });
});
