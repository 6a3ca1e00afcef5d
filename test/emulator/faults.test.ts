import { afterEach, describe, expect, it } from 'vitest';
import { FaultInjector, formatFaultSpec, parseFaultSpec, resolveFaults } from '../../src/emulator/faults.js';
import { defaultAccount, startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { call, callMany, isFailure, type HttpAnswer } from './fixtures/http.js';

const auth = [defaultAccount.authId, defaultAccount.authToken] as const;
const aclPath = `/v1/Account/${defaultAccount.authId}/Zentrunk/IPAccessControlList/`;

let emulator: RunningEmulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

/** Binomial bounds: the count of a fault of probability `p` over `n` draws lies within 5 standard deviations. */
function expectRate(count: number, n: number, p: number): void {
  const spread = 5 * Math.sqrt(n * p * (1 - p));
  expect(count).toBeGreaterThanOrEqual(Math.floor(n * p - spread));
  expect(count).toBeLessThanOrEqual(Math.ceil(n * p + spread));
}

describe('the --faults spec', () => {
  it('reads probabilities as decimals or percentages, methods joined with +, and a seed', () => {
    expect(parseFaultSpec('500=0.1, reset=5%,lost=0.2,methods=post+DELETE,seed=42')).toEqual({
      error500: 0.1,
      reset: 0.05,
      lost: 0.2,
      methods: ['post', 'DELETE'],
      seed: 42,
    });
    expect(resolveFaults('500=0.1,reset=5%,lost=0.2,methods=post+DELETE,seed=42')).toEqual({
      error500: 0.1,
      reset: 0.05,
      lost: 0.2,
      methods: ['POST', 'DELETE'],
      seed: 42,
    });
    expect(resolveFaults('none')).toBeNull();
    expect(resolveFaults('')).toBeNull();
  });

  it('defaults to every method and a random seed, and writes itself back as a spec', () => {
    const settings = resolveFaults({ lost: 0.5 });
    expect(settings).toMatchObject({ error500: 0, reset: 0, lost: 0.5, methods: ['GET', 'POST', 'DELETE'] });
    expect(Number.isInteger(settings?.seed)).toBe(true);
    expect(formatFaultSpec(resolveFaults('lost=0.5,seed=9'))).toBe(
      '500=0,reset=0,lost=0.5,methods=GET+POST+DELETE,seed=9',
    );
  });

  it.each([
    ['500=1.5', '500 must be a probability from 0 to 1 or a percentage such as 5%, not "1.5"'],
    ['reset=abc', 'reset must be a probability from 0 to 1 or a percentage such as 5%, not "abc"'],
    ['boom=0.1', 'unknown fault "boom" (expected 500, reset, lost, methods or seed)'],
    ['500', '"500" is not of the form key=value (expected 500, reset, lost, methods or seed)'],
    ['500=0.6,lost=0.6', 'the fault probabilities add up to 1.2; their sum must be at most 1'],
    [
      'lost=0.1,methods=PUT',
      'methods must be GET, POST or DELETE joined with "+" (e.g. methods=POST+DELETE), not "PUT"',
    ],
    ['lost=0.1,seed=-3', 'seed must be an integer from 0 to 4294967295, not "-3"'],
    ['lost=0.1,lost=0.2', '"lost" is given twice'],
  ])('refuses %s with a clear message', (spec, message) => {
    expect(() => resolveFaults(spec)).toThrow(message);
  });

  it('injects each fault at its configured rate, and only on the chosen methods', () => {
    const injector = new FaultInjector(resolveFaults('500=0.1,reset=0.05,lost=0.2,methods=POST,seed=1'));
    const counts = { reset: 0, error500: 0, lost_response: 0, none: 0 };
    const n = 100_000;
    for (let index = 0; index < n; index += 1) counts[injector.draw('POST') ?? 'none'] += 1;
    expectRate(counts.reset, n, 0.05);
    expectRate(counts.error500, n, 0.1);
    expectRate(counts.lost_response, n, 0.2);
    for (let index = 0; index < 1000; index += 1) expect(injector.draw('GET')).toBeNull();
  });

  it('repeats the same faults for the same seed', () => {
    const sequence = (seed: number): Array<string | null> => {
      const injector = new FaultInjector(resolveFaults({ error500: 0.3, reset: 0.3, seed }));
      return Array.from({ length: 50 }, () => injector.draw('GET'));
    };
    expect(sequence(7)).toEqual(sequence(7));
    expect(sequence(7)).not.toEqual(sequence(8));
  });
});

describe('faults over HTTP', () => {
  it('answers each fault at its rate and records every one in the request log', async () => {
    emulator = await startEmulator({ faults: '500=0.1,reset=0.05,lost=0.2,methods=GET,seed=42' });
    const n = 1200;
    const answers = await callMany(n, 8, () => call(emulator!.url, aclPath, { auth }));
    const failures = answers.filter(isFailure);
    const ok = answers.filter((answer): answer is HttpAnswer => !isFailure(answer));
    const served500 = ok.filter((answer) => answer.status === 500);
    expect(
      served500.every(
        (answer) => (answer.body as { error: string }).error === 'internal server error (injected fault)',
      ),
    ).toBe(true);
    expect(ok.filter((answer) => answer.status !== 500).every((answer) => answer.status === 200)).toBe(true);

    const log = emulator.runtime.log.list({ type: 'request' });
    expect(log).toHaveLength(n);
    const byFault = (fault: string) => log.filter((entry) => entry.fault === fault);
    expectRate(byFault('reset').length, n, 0.05);
    expectRate(byFault('error500').length, n, 0.1);
    expectRate(byFault('lost_response').length, n, 0.2);
    // What the client saw matches the log exactly: every reset and lost response failed, every 500 arrived.
    expect(served500).toHaveLength(byFault('error500').length);
    expect(failures).toHaveLength(byFault('reset').length + byFault('lost_response').length);
    expect(byFault('reset').every((entry) => entry.status === null && entry.account === defaultAccount.authId)).toBe(
      true,
    );
    expect(byFault('lost_response').every((entry) => entry.status === 200)).toBe(true);
    expect(log.filter((entry) => entry.fault === undefined).every((entry) => entry.status === 200)).toBe(true);
  });

  it('leaves methods that are not chosen alone', async () => {
    emulator = await startEmulator({ faults: { reset: 0.5, error500: 0.5, methods: ['POST'], seed: 3 } });
    const answers = await callMany(100, 8, () => call(emulator!.url, aclPath, { auth }));
    expect(answers.every((answer) => !isFailure(answer) && answer.status === 200)).toBe(true);
    expect(emulator.runtime.log.list().some((entry) => entry.fault !== undefined)).toBe(false);
  });

  it('commits a write whose response is lost: the client sees no answer, the change is there', async () => {
    emulator = await startEmulator({ faults: 'lost=1,methods=POST,seed=1' });
    const answer = await call(emulator.url, aclPath, {
      method: 'POST',
      auth,
      body: { name: 'lost-one', ip_addresses: ['203.0.113.7'] },
    });
    expect(answer).toEqual({ failure: 'EMPTY' });
    const list = await call(emulator.url, aclPath, { auth });
    expect(list).toMatchObject({
      status: 200,
      body: { objects: [{ name: 'lost-one', ip_addresses: ['203.0.113.7'] }] },
    });
    const [entry] = emulator.runtime.log.list({ type: 'request' });
    expect(entry).toMatchObject({
      method: 'POST',
      status: 201,
      fault: 'lost_response',
      account: defaultAccount.authId,
    });
  });

  it('resets before handling: the write is not applied', async () => {
    emulator = await startEmulator({ faults: 'reset=1,methods=POST,seed=1' });
    const answer = await call(emulator.url, aclPath, {
      method: 'POST',
      auth,
      body: { name: 'never', ip_addresses: ['203.0.113.8'] },
    });
    expect(isFailure(answer)).toBe(true);
    const list = await call(emulator.url, aclPath, { auth });
    expect(list).toMatchObject({ status: 200, body: { objects: [] } });
  });

  it('answers an injected 500 without applying the write', async () => {
    emulator = await startEmulator({ faults: '500=1,methods=POST,seed=1' });
    const answer = await call(emulator.url, aclPath, {
      method: 'POST',
      auth,
      body: { name: 'never', ip_addresses: ['203.0.113.9'] },
    });
    expect(answer).toMatchObject({ status: 500, body: { error: 'internal server error (injected fault)' } });
    expect(await call(emulator.url, aclPath, { auth })).toMatchObject({ status: 200, body: { objects: [] } });
  });

  it('switches faults on and off at run time through the admin route', async () => {
    emulator = await startEmulator();
    const seeded = await call(emulator.url, aclPath, {
      method: 'POST',
      auth,
      body: { name: 'seeded', ip_addresses: ['203.0.113.1'] },
    });
    expect(seeded).toMatchObject({ status: 201 });

    const on = await call(emulator.url, '/__emulator/faults/', {
      method: 'POST',
      body: { faults: '500=1,methods=GET,seed=5' },
    });
    expect(on).toMatchObject({
      status: 200,
      body: {
        faults: { spec: '500=1,reset=0,lost=0,methods=GET,seed=5', error500: 1, methods: ['GET'], seed: 5 },
        latency: null,
        rate_limit: null,
      },
    });
    expect(await call(emulator.url, aclPath, { auth })).toMatchObject({ status: 500 });

    const bad = await call(emulator.url, '/__emulator/faults/', { method: 'POST', body: { faults: 'lost=2' } });
    expect(bad).toMatchObject({
      status: 400,
      body: { error: 'faults: lost must be a probability from 0 to 1 or a percentage such as 5%, not "2"' },
    });
    const unknown = await call(emulator.url, '/__emulator/faults/', { method: 'POST', body: { fault: 'lost=1' } });
    expect(unknown).toMatchObject({
      status: 400,
      body: { error: 'unknown setting "fault" (expected faults, latency or rate_limit)' },
    });

    const off = await call(emulator.url, '/__emulator/faults/', { method: 'DELETE' });
    expect(off).toMatchObject({ status: 200, body: { faults: null, latency: null, rate_limit: null } });
    expect(await call(emulator.url, aclPath, { auth })).toMatchObject({
      status: 200,
      body: { objects: [{ name: 'seeded' }] },
    });
  });

  it('never faults the admin routes', async () => {
    emulator = await startEmulator({ faults: 'reset=1' });
    expect(await call(emulator.url, '/__emulator/health/')).toMatchObject({ status: 200 });
    expect(await call(emulator.url, '/__emulator/faults/')).toMatchObject({
      status: 200,
      body: { faults: { reset: 1 } },
    });
  });
});
