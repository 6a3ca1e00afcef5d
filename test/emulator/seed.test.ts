import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultAccount, startEmulator, type RunningEmulator, type SeedInput } from '../../src/emulator/index.js';
import { seededNumbers } from '../../src/emulator/routes/numbers.js';
import { call, type HttpAnswer } from './fixtures/http.js';

const fixture = resolve('test/emulator/fixtures/seed.yaml');
const auth = [defaultAccount.authId, defaultAccount.authToken] as const;
const team = ['MASEEDTEAM0000000002', 'team-token'] as const;
const base = (authId: string): string => `/v1/Account/${authId}`;

let directory: string;
const running: RunningEmulator[] = [];
beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), 'telform-seed-'));
});
afterEach(async () => {
  for (const emulator of running.splice(0)) await emulator.close();
  await rm(directory, { recursive: true, force: true });
});

async function start(options: Parameters<typeof startEmulator>[0]): Promise<RunningEmulator> {
  const emulator = await startEmulator(options);
  running.push(emulator);
  return emulator;
}

async function names(
  emulator: RunningEmulator,
  path: string,
  key: string,
  field: string,
  who = auth,
): Promise<string[]> {
  const answer = (await call(emulator.url, `${base(who[0])}${path}`, { auth: who })) as HttpAnswer;
  expect(answer.status).toBe(200);
  return ((answer.body as Record<string, Array<Record<string, string>>>)[key] ?? []).map(
    (item) => item[field] as string,
  );
}

async function seedFile(name: string, text: string): Promise<string> {
  const file = join(directory, name);
  await writeFile(file, text);
  return file;
}

describe('--seed', () => {
  it('replays profiles, applications and numbers of a YAML file through the routes, for every account', async () => {
    const emulator = await start({ seedFile: fixture });
    expect(await names(emulator, '/Profile/', 'profiles', 'profile_alias')).toContain('acme-seeded');
    const applications = await names(emulator, '/Application/', 'objects', 'app_name');
    expect(applications).toEqual(expect.arrayContaining(['seeded-ivr', 'seeded-fixed']));
    const fixed = await call(emulator.url, `${base(defaultAccount.authId)}/Application/88800000000000001/`, { auth });
    expect(fixed).toMatchObject({ status: 200, body: { app_name: 'seeded-fixed' } });
    const numbers = await call(emulator.url, `/__emulator/accounts/${defaultAccount.authId}/numbers/`);
    expect(numbers).toMatchObject({
      status: 200,
      body: {
        numbers: [
          ...seededNumbers.map((number) => ({ number })),
          { number: '14155550100', app_id: null },
          { number: '14155550101', app_id: '88800000000000001' },
        ],
      },
    });
    // The seed's extra account is served with its token and holds its own data only.
    expect(await names(emulator, '/Application/', 'objects', 'app_name', team)).toContain('team-app');
    expect(await names(emulator, '/Application/', 'objects', 'app_name', team)).not.toContain('seeded-ivr');
  });

  it('takes the same content as an object', async () => {
    const seedData: SeedInput = {
      applications: [{ app_name: 'from-object', answer_url: 'https://example.com/a' }],
      numbers: ['14155550199'],
    };
    const emulator = await start({ seedData });
    expect(await names(emulator, '/Application/', 'objects', 'app_name')).toContain('from-object');
    expect(emulator.runtime.state.accounts.get(defaultAccount.authId)?.numbers.has('14155550199')).toBe(true);
  });

  it('seeds an account once: a restart on the same data file does not seed it again', async () => {
    const dataFile = join(directory, 'state.json');
    const first = await start({ seedFile: fixture, dataFile });
    const before = await names(first, '/Application/', 'objects', 'app_name');
    await first.close();
    running.splice(0);
    const second = await start({ seedFile: fixture, dataFile });
    expect(await names(second, '/Application/', 'objects', 'app_name')).toEqual(before);
    expect(before.filter((name) => name === 'seeded-ivr')).toHaveLength(1);
  });

  it('stops at the first refused item, naming its line and column and the API message', async () => {
    const file = await seedFile(
      'refused.yaml',
      [
        'applications:',
        '  - app_name: fine',
        '    answer_url: https://example.com/a',
        '  - app_name: wrong',
        '    answer_url: https://example.com/b',
        '    answer_method: PUT',
        '',
      ].join('\n'),
    );
    await expect(start({ seedFile: file })).rejects.toThrow(
      `${file}:4:5 (applications[1]): the emulator refused this item (400): answer_method must be GET or POST.`,
    );
  });

  it.each([
    [
      'colors: [red]\n',
      '1:1 (colors): unknown key "colors" (expected profiles, applications, numbers, existing, accounts).',
    ],
    ['applications: {app_name: x}\n', '1:15 (applications): applications must be a list.'],
    ['numbers:\n  - [1, 2]\n', '2:5 (numbers[0]): a number is a string of digits or a mapping.'],
    [
      'accounts:\n  - auth_id: MANEW0000000000003\n',
      '2:5 (accounts[0]): the account MANEW0000000000003 is not served, so it needs an auth_token.',
    ],
    ['accounts:\n  - auth_id: bad-id!\n', '2:14 (accounts[0].auth_id): auth_id must be 1 to 64 letters or digits.'],
    [
      '- just\n- a list\n',
      '1:1 (top level): the seed must be a mapping with profiles, applications, numbers or accounts.',
    ],
  ])('refuses a malformed seed: %j', async (text, message) => {
    const file = await seedFile('bad.yaml', text);
    await expect(start({ seedFile: file })).rejects.toThrow(`${file}:${message}`);
  });

  it('refuses a file that is not YAML, with its position', async () => {
    const file = await seedFile('broken.yaml', 'applications:\n  - app_name: "unterminated\n');
    await expect(start({ seedFile: file })).rejects.toThrow(
      new RegExp(
        `^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:\\d+:\\d+: the seed file is not valid YAML or JSON \\(`,
      ),
    );
  });

  it('refuses a missing file', async () => {
    const file = join(directory, 'missing.yaml');
    await expect(start({ seedFile: file })).rejects.toThrow(`Cannot read the seed file ${file}: ENOENT.`);
  });
});
