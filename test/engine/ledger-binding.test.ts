import { describe, expect, it } from 'vitest';
import { PlanSealer } from '../../src/run/plan-seal.js';
import { assertPlanApplies, assertPlanSealed } from '../../src/run/saved-plan.js';
import { sameEndpoint } from '../../src/util/endpoint.js';
import { change, plan } from '../support/plan.js';

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

describe('one rule for the endpoint of a state and of a saved plan', () => {
  const made = {
    ...plan([change({ address: 'TrunkIpAcl/a', action: 'create' })]),
    endpoint: 'http://127.0.0.1:4010',
    account: 'MATEST',
  };
  const sealed = new PlanSealer('token').seal(made);

  it('applies a plan made against 127.0.0.1 at localhost, as the state would be used there', () => {
    expect(() =>
      assertPlanSealed(
        sealed,
        { endpointLabel: 'http://localhost:4010', account: 'MATEST', authToken: 'token' },
        'plan.json',
      ),
    ).not.toThrow();
    expect(() => assertPlanApplies(sealed, { ...made, endpoint: 'http://localhost:4010' }, 'plan.json')).not.toThrow();
  });

  it('still refuses another port, scheme or host', () => {
    expect(() =>
      assertPlanSealed(
        sealed,
        { endpointLabel: 'http://localhost:4011', account: 'MATEST', authToken: 'token' },
        'plan.json',
      ),
    ).toThrow('plan.json was made for account MATEST at http://127.0.0.1:4010, not MATEST at http://localhost:4011');
    expect(() =>
      assertPlanSealed(
        sealed,
        { endpointLabel: 'https://api.example.com', account: 'MATEST', authToken: 'token' },
        'plan.json',
      ),
    ).toThrow();
  });
});
