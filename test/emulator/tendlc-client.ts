import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import { startEmulator, type EmulatorOptions, type RunningEmulator } from '../../src/emulator/index.js';

/**
 * Test helpers of the 10DLC area: a client that talks to a running emulator over real HTTP as one
 * account, fresh accounts (each starts with the five seeded profiles, and a profile makes one brand
 * ever), the clock route, and valid request bodies to vary one field at a time.
 */

/** The registry delay of these tests: long enough that the sweep timers never fire during a run. */
export const testRegistryDelayMs = 60_000;

export const seeded = {
  withEin: [
    '5eed0000-0000-4000-8000-000000000001',
    '5eed0000-0000-4000-8000-000000000002',
    '5eed0000-0000-4000-8000-000000000003',
    '5eed0000-0000-4000-8000-000000000004',
  ],
  withoutEin: '5eed0000-0000-4000-8000-000000000005',
} as const;

export interface TestReply {
  status: number;
  // `any` because the body differs per endpoint and tests assert on it field by field.
  body: any;
}

export class TendlcClient {
  constructor(
    readonly emulator: RunningEmulator,
    readonly authId: string,
    readonly authToken: string,
  ) {}

  get base(): string {
    return `/v1/Account/${this.authId}`;
  }

  /** A request under the account base (`/10dlc/Brand/`). */
  call(method: string, path: string, body?: unknown): Promise<TestReply> {
    const authorization = `Basic ${Buffer.from(`${this.authId}:${this.authToken}`).toString('base64')}`;
    return rawRequest(this.emulator, method, `${this.base}${path}`, body, { authorization });
  }

  get(path: string): Promise<TestReply> {
    return this.call('GET', path);
  }

  post(path: string, body: unknown = {}): Promise<TestReply> {
    return this.call('POST', path, body);
  }

  delete(path: string): Promise<TestReply> {
    return this.call('DELETE', path);
  }

  /** Moves the emulator's clock forward through the admin route. */
  async advance(milliseconds: number): Promise<void> {
    const reply = await rawRequest(this.emulator, 'POST', '/__emulator/clock/', { advance_ms: milliseconds });
    expect(reply.status).toBe(200);
  }

  /** Seeds a number through the admin route (linked to a campaign, with a link status). */
  async seedNumber(body: Record<string, unknown>): Promise<void> {
    const reply = await rawRequest(this.emulator, 'POST', `/__emulator/accounts/${this.authId}/numbers/`, body);
    expect([200, 201]).toContain(reply.status);
  }

  async billing(): Promise<TestReply> {
    return rawRequest(this.emulator, 'GET', `/__emulator/accounts/${this.authId}/billing/`);
  }

  /** Creates a brand on `profileUuid` and returns its id. */
  async createBrand(profileUuid: string, alias = 'acme', extra: Record<string, unknown> = {}): Promise<string> {
    const reply = await this.post('/10dlc/Brand/', { profile_uuid: profileUuid, brand_alias: alias, ...extra });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    return reply.body.brand_id as string;
  }

  /** A brand that the registry has already `COMPLETED` (the clock moves past the delay). */
  async completedBrand(profileUuid: string = seeded.withEin[0]): Promise<string> {
    const brandId = await this.createBrand(profileUuid);
    await this.advance(testRegistryDelayMs);
    return brandId;
  }

  async createCampaign(brandId: string, overrides: Record<string, unknown> = {}): Promise<string> {
    const reply = await this.post('/10dlc/Campaign/', campaignBody(brandId, overrides));
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    return reply.body.campaign_id as string;
  }
}

export async function rawRequest(
  emulator: RunningEmulator,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<TestReply> {
  const init: RequestInit = { method, headers: { ...headers } };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    (init.headers as Record<string, string>)['content-type'] = 'application/json';
  }
  const response = await fetch(`${emulator.url}${path}`, init);
  const text = await response.text();
  return { status: response.status, body: text === '' ? undefined : JSON.parse(text) };
}

export async function startTendlcEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  return startEmulator({ registryDelayMs: testRegistryDelayMs, ...options });
}

/** A new account on `emulator` (with its own seeded profiles), through the admin route. */
export async function freshAccount(emulator: RunningEmulator): Promise<TendlcClient> {
  const authId = `MA${randomBytes(9).toString('hex').toUpperCase()}`;
  const authToken = randomBytes(16).toString('hex');
  const reply = await rawRequest(emulator, 'POST', '/__emulator/accounts/', { auth_id: authId, auth_token: authToken });
  expect(reply.status).toBe(201);
  return new TendlcClient(emulator, authId, authToken);
}

/** A register request that passes every rule of the API reference's table. */
export function campaignBody(brandId: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    brand_id: brandId,
    campaign_alias: 'appointment-reminders',
    vertical: 'HEALTHCARE',
    usecase: 'ACCOUNT_NOTIFICATION',
    description: 'Appointment reminders and confirmations sent to patients of the practice.',
    sample1: 'Hi Sam, your appointment is on May 3 at 10:00. Reply C to confirm.',
    sample2: 'Your appointment is confirmed. Reply STOP to opt out, HELP for help.',
    subscriber_optin: true,
    subscriber_optout: true,
    subscriber_help: true,
    direct_lending: false,
    embedded_link: false,
    embedded_phone: false,
    age_gated: false,
    affiliate_marketing: false,
    message_flow: 'Patients opt in by ticking a box on the signed intake form at their first visit.',
    help_message: 'Northwind Dental: call 555-0100 for help. Reply STOP to opt out.',
    optout_message: 'You are unsubscribed from Northwind Dental reminders.',
    ...overrides,
  };
}

/** A profile create request that passes every rule. */
export function profileBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    profile_alias: 'test-profile',
    customer_type: 'DIRECT',
    entity_type: 'PRIVATE',
    company_name: 'Test Company Inc.',
    vertical: 'TECHNOLOGY',
    ein: '81-9999999',
    ein_issuing_country: 'US',
    website: 'https://test.example.com',
    address: { street: '1 Test Way', city: 'Austin', state: 'TX', postal_code: '73301', country: 'US' },
    authorized_contact: {
      first_name: 'Alex',
      last_name: 'Doe',
      email: 'alex.doe@example.com',
      phone: '+12025550199',
      title: 'Owner',
      seniority: 'CEO',
    },
    ...overrides,
  };
}

export const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** An `{ api_id, error }` body with exactly this message. */
export function errorWith(message: string): unknown {
  return { api_id: expect.stringMatching(uuidPattern), error: message };
}
