import { readFile } from 'node:fs/promises';
import { LineCounter, isMap, isScalar, parseDocument } from 'yaml';
import { ApiError, type JsonObject, type Reply } from './http.js';
import { heldKinds, holdObjects } from './held.js';
import type { SeedAccountInput, SeedInput } from './options.js';
import { Router, matchSegments, segmentsOf, type AdminRoute, type Route } from './router.js';
import type { Runtime } from './runtime.js';
import { takeSnapshotHeader, type SnapshotHeader } from './snapshot-file.js';
import { EmulatorStartError } from './start-error.js';

/**
 * Seed data (`--seed FILE`, or `seedData` in the options): profiles, applications and numbers an account starts with.
 * Each item is replayed through the emulator's own routes (`POST /Profile/`, `POST /Application/`,
 * and the admin route that adds numbers), so seeded data passes the same validation as data sent
 * over HTTP and this module knows nothing of the records' internals.
 *
 * ```yaml
 * profiles: [ { profile_alias: acme, … } ]         # for the first account served
 * applications: [ { app_name: ivr, answer_url: … } ]
 * numbers: [ "14155550100", { number: "14155550101", app_id: "…" } ]
 * existing:                                         # held as the API reads them, not judged by the create rules
 *   profiles: [ { profile_uuid: …, entity_type: PUBLIC_PROFIT, … } ]
 *   brands: [ { brand_id: BSTART1, brand_type: STARTER, … } ]
 *   campaigns: [ { campaign_id: CSTART1, brand_id: BSTART1, usecase: STARTER, … } ]
 *   trunk_credentials: [ { username: sip_user_1 } ]
 * accounts:                                         # other accounts, created if not served yet
 *   - auth_id: MATEAM00000000000002
 *     auth_token: team-token
 *     applications: [ … ]
 * ```
 * An account is seeded only when it starts empty: one loaded from `--data` is left as it was, so a
 * restart never seeds twice.
 */

/**
 * Turns a path inside the seed (`accounts.0.profiles.1`) into a place for messages; with `atKey`, the
 * place of the last key itself rather than of its value (for unknown keys).
 */
export type Locate = (path: ReadonlyArray<string | number>, options?: { atKey?: boolean }) => string;

export interface LoadedSeed {
  input: SeedInput;
  locate: Locate;
  /** Set when the file is a snapshot of an account (snapshot-file.ts). */
  snapshot?: SnapshotHeader;
}

const sectionKeys = ['profiles', 'applications', 'numbers'] as const;
const accountKeys = [...sectionKeys, 'existing', 'auth_id', 'auth_token'];
const topKeys = [...sectionKeys, 'existing', 'accounts'];

/** Reads and checks a YAML or JSON seed file (JSON is YAML); errors name file:line:column. */
export async function readSeedFile(file: string): Promise<LoadedSeed> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new EmulatorStartError('seed_file_invalid', `Cannot read the seed file ${file}: ${code}.`, { cause: error });
  }
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, uniqueKeys: true });
  const at = (offset: number): string => {
    const { line, col } = lineCounter.linePos(offset);
    return `${file}:${line}:${col}`;
  };
  const [problem] = document.errors;
  if (problem) {
    throw new EmulatorStartError(
      'seed_file_invalid',
      `${at(problem.pos[0])}: the seed file is not valid YAML or JSON (${firstLine(problem.message)}).`,
    );
  }
  const locate: Locate = (path, options = {}) => {
    if (options.atKey && path.length > 0) {
      const parent = (path.length === 1 ? document.contents : document.getIn(path.slice(0, -1), true)) as unknown;
      if (isMap(parent)) {
        const pair = parent.items.find((item) => isScalar(item.key) && item.key.value === path[path.length - 1]);
        const range = pair && isScalar(pair.key) ? pair.key.range : undefined;
        if (range) return `${at(range[0])} (${formatPath(path)})`;
      }
    }
    for (let length = path.length; length >= 0; length -= 1) {
      const node = document.getIn(path.slice(0, length), true) as { range?: [number, number, number] } | undefined;
      if (node && typeof node === 'object' && node.range) return `${at(node.range[0])} (${formatPath(path)})`;
    }
    return `${file} (${formatPath(path)})`;
  };
  const input: unknown = document.toJS();
  const snapshot =
    isObject(input) && 'format' in input
      ? takeSnapshotHeader(input, (key, why) => {
          throw new EmulatorStartError('seed_file_invalid', `${locate([key])}: ${why}.`);
        })
      : undefined;
  checkSeedShape(input ?? {}, locate);
  return { input: (input ?? {}) as SeedInput, locate, ...(snapshot ? { snapshot } : {}) };
}

/** The place of a path in seed data given as an object (no file positions). */
export const locateInObject: Locate = (path) => `seed data (${formatPath(path)})`;

function formatPath(path: ReadonlyArray<string | number>): string {
  return path.length === 0
    ? 'top level'
    : path.map((part, index) => (typeof part === 'number' ? `[${part}]` : `${index === 0 ? '' : '.'}${part}`)).join('');
}

function firstLine(message: string): string {
  return (message.split('\n')[0] ?? message).replace(/\s+at line \d+, column \d+:?$/, '').trim();
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Checks the seed's structure (not the items: the routes check those). */
export function checkSeedShape(input: unknown, locate: Locate): asserts input is SeedInput {
  const fail = (path: Array<string | number>, why: string, atKey = false): never => {
    throw new EmulatorStartError('seed_file_invalid', `${locate(path, { atKey })}: ${why}.`);
  };
  if (!isObject(input)) fail([], 'the seed must be a mapping with profiles, applications, numbers or accounts');
  const checkSections = (section: Record<string, unknown>, prefix: Array<string | number>, allowed: string[]): void => {
    for (const key of Object.keys(section)) {
      if (!allowed.includes(key)) fail([...prefix, key], `unknown key "${key}" (expected ${allowed.join(', ')})`, true);
    }
    for (const key of sectionKeys) {
      const items = section[key];
      if (items === undefined || items === null) continue;
      if (!Array.isArray(items)) fail([...prefix, key], `${key} must be a list`);
      (items as unknown[]).forEach((item, index) => {
        const isNumber = key === 'numbers' && (typeof item === 'string' || typeof item === 'number');
        if (!isNumber && !isObject(item)) {
          fail(
            [...prefix, key, index],
            key === 'numbers'
              ? 'a number is a string of digits or a mapping'
              : `each of ${key} must be a mapping of the create request's parameters`,
          );
        }
      });
    }
    const existing = section.existing;
    if (existing === undefined || existing === null) return;
    if (!isObject(existing)) fail([...prefix, 'existing'], `existing must be a mapping of ${heldKinds.join(', ')}`);
    const held = existing as Record<string, unknown>;
    for (const key of Object.keys(held)) {
      if (!(heldKinds as readonly string[]).includes(key))
        fail([...prefix, 'existing', key], `unknown key "${key}" (expected ${heldKinds.join(', ')})`, true);
      const items = held[key];
      if (items === undefined || items === null) continue;
      if (!Array.isArray(items)) fail([...prefix, 'existing', key], `${key} must be a list`);
      (items as unknown[]).forEach((item, index) => {
        if (!isObject(item))
          fail(
            [...prefix, 'existing', key, index],
            `each of ${key} must be a mapping of the object as the API reads it`,
          );
      });
    }
  };
  const top = input as Record<string, unknown>;
  checkSections(top, [], topKeys);
  const accounts = top.accounts;
  if (accounts === undefined || accounts === null) return;
  if (!Array.isArray(accounts)) fail(['accounts'], 'accounts must be a list');
  (accounts as unknown[]).forEach((account, index) => {
    if (!isObject(account)) fail(['accounts', index], 'each account must be a mapping with auth_id');
    const entry = account as Record<string, unknown>;
    if (typeof entry.auth_id !== 'string' || !/^[A-Za-z0-9]{1,64}$/.test(entry.auth_id)) {
      fail(['accounts', index, 'auth_id'], 'auth_id must be 1 to 64 letters or digits');
    }
    if (entry.auth_token !== undefined && (typeof entry.auth_token !== 'string' || entry.auth_token === '')) {
      fail(['accounts', index, 'auth_token'], 'auth_token must be a non-empty string');
    }
    checkSections(entry, ['accounts', index], accountKeys);
  });
}

export interface ApplySeedContext {
  runtime: Runtime;
  routes: readonly Route[];
  adminRoutes: readonly AdminRoute[];
  /** The account the top-level sections go to: the first one served. */
  defaultAuthId: string;
  /** Accounts that existed before this start (loaded from `--data`): never seeded again. */
  loadedAccounts: ReadonlySet<string>;
  locate: Locate;
}

/** The admin routes (routes/admin-seed.ts) that add a number, and an application with a chosen id. */
export const seedNumberPath = '/__emulator/accounts/:auth_id/numbers/';
export const seedApplicationPath = '/__emulator/accounts/:auth_id/applications/';

type Place = Array<string | number>;

/** Replays the seed through the routes; the first refused item stops the start with its place and the API's message. */
export async function applySeed(input: SeedInput, context: ApplySeedContext): Promise<void> {
  const router = new Router(context.routes);
  await seedAccount(context, router, context.defaultAuthId, input, []);
  for (const [index, entry] of (input.accounts ?? []).entries()) {
    const existing = context.runtime.state.accounts.get(entry.auth_id);
    if (!existing) {
      if (entry.auth_token === undefined) {
        throw seedError(
          context,
          ['accounts', index],
          `the account ${entry.auth_id} is not served, so it needs an auth_token`,
        );
      }
      context.runtime.ensureAccount(entry.auth_id, entry.auth_token);
    } else if (entry.auth_token !== undefined && entry.auth_token !== existing.authToken) {
      throw seedError(
        context,
        ['accounts', index, 'auth_token'],
        `the account ${entry.auth_id} is served with another auth token`,
      );
    }
    await seedAccount(context, router, entry.auth_id, entry, ['accounts', index]);
  }
}

async function seedAccount(
  context: ApplySeedContext,
  router: Router,
  authId: string,
  section: SeedAccountInput,
  prefix: Place,
): Promise<void> {
  if (context.loadedAccounts.has(authId)) return;
  const account = context.runtime.state.accounts.get(authId);
  if (!account) throw new Error(`seeded account ${authId} does not exist`);
  const { runtime } = context;
  const query = new URLSearchParams();
  const viaApi = (path: string, body: JsonObject, place: Place): Promise<void> =>
    replay(context, place, async () => {
      const { route, params } = router.match('POST', path);
      return route.handle({ account, params, query, body, accountBase: `/v1/Account/${authId}`, runtime });
    });
  const viaAdmin = (path: string, body: JsonObject, place: Place): Promise<void> =>
    replay(context, place, async () => {
      const route = context.adminRoutes.find((candidate) => candidate.method === 'POST' && candidate.path === path);
      if (!route) throw seedError(context, place, 'this emulator cannot seed this item');
      const params = matchSegments(segmentsOf(path), segmentsOf(path.replace(':auth_id', authId))) ?? {};
      return route.handle({ params, query, body, runtime });
    });

  // Held objects first: the seed's numbers may be linked to a held campaign.
  if (section.existing) {
    const held = section.existing;
    holdObjects(account, held, runtime, (kind, index, hold) => {
      try {
        hold();
      } catch (error) {
        if (error instanceof ApiError)
          throw refused(context, [...prefix, 'existing', kind, index], error.status, error.message);
        throw error;
      }
    });
  }
  for (const [index, profile] of (section.profiles ?? []).entries()) {
    await viaApi('/Profile/', profile, [...prefix, 'profiles', index]);
  }
  for (const [index, application] of (section.applications ?? []).entries()) {
    const place = [...prefix, 'applications', index];
    // The API chooses app_id itself; an application that names one (so that seeded numbers can be
    // attached to it) goes through the admin route that accepts a chosen id.
    if (application.app_id !== undefined) await viaAdmin(seedApplicationPath, application, place);
    else await viaApi('/Application/', application, place);
  }
  for (const [index, number] of (section.numbers ?? []).entries()) {
    const body: JsonObject = typeof number === 'object' ? number : { number: String(number) };
    await viaAdmin(seedNumberPath, body, [...prefix, 'numbers', index]);
  }
}

/** Runs one route call; a refusal (thrown or answered with status 400 and up) becomes a seed error at `place`. */
async function replay(context: ApplySeedContext, place: Place, send: () => Promise<Reply>): Promise<void> {
  let reply: Reply;
  try {
    reply = await send();
  } catch (error) {
    if (error instanceof ApiError) throw refused(context, place, error.status, error.message);
    throw error;
  }
  if (reply.status >= 400) throw refused(context, place, reply.status, String(reply.body?.error ?? 'no message'));
}

function refused(context: ApplySeedContext, place: Place, status: number, message: string): EmulatorStartError {
  return seedError(context, place, `the emulator refused this item (${status}): ${message.replace(/\.$/, '')}`);
}

function seedError(context: ApplySeedContext, place: Place, why: string): EmulatorStartError {
  return new EmulatorStartError('seed_file_invalid', `${context.locate(place)}: ${why}.`);
}
