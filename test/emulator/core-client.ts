import { expect } from 'vitest';
import { defaultAccount, startEmulator, type EmulatorOptions, type RunningEmulator } from '../../src/emulator/index.js';

/** A reply as the tests see it: status and parsed JSON body (`undefined` for an empty body). */
export interface TestReply {
  status: number;
  // `any` because the body's shape differs per endpoint and tests assert on it field by field.
  body: any;
  headers: Headers;
}

export interface TestAccount {
  authId: string;
  authToken: string;
}

/** Talks to a running emulator over real HTTP as one account. */
export class CoreClient {
  constructor(
    readonly emulator: RunningEmulator,
    readonly account: TestAccount = defaultAccount,
  ) {}

  get base(): string {
    return `/v1/Account/${this.account.authId}`;
  }

  authorization(): string {
    return `Basic ${Buffer.from(`${this.account.authId}:${this.account.authToken}`).toString('base64')}`;
  }

  /** A request to `path` under the account base (`/SipAuth/Credential/`). */
  call(method: string, path: string, body?: unknown): Promise<TestReply> {
    return this.raw(method, `${this.base}${path}`, body, { authorization: this.authorization() });
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

  /** Any request to the emulator; a string body is sent verbatim, anything else as JSON. */
  async raw(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<TestReply> {
    const init: RequestInit = { method, headers: { ...headers } };
    if (body !== undefined) {
      init.body = typeof body === 'string' ? body : JSON.stringify(body);
      (init.headers as Record<string, string>)['content-type'] = 'application/json';
    }
    const response = await fetch(`${this.emulator.url}${path}`, init);
    const text = await response.text();
    return { status: response.status, body: text === '' ? undefined : JSON.parse(text), headers: response.headers };
  }

  /** Adds an account through the admin route and returns a client for it. */
  async otherAccount(authId: string, authToken: string): Promise<CoreClient> {
    const reply = await this.raw('POST', '/__emulator/accounts/', { auth_id: authId, auth_token: authToken });
    if (reply.status !== 201 && reply.status !== 200)
      throw new Error(`could not add account: ${JSON.stringify(reply.body)}`);
    return new CoreClient(this.emulator, { authId, authToken });
  }

  /** Seeds a phone number through the admin route. */
  async seedNumber(body: Record<string, unknown>): Promise<TestReply> {
    return this.raw('POST', `/__emulator/accounts/${this.account.authId}/numbers/`, body);
  }
}

/** Starts an emulator for one test file; call the returned `close` in `afterAll`. */
export async function startCoreEmulator(options: EmulatorOptions = {}): Promise<CoreClient> {
  return new CoreClient(await startEmulator(options));
}

export const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Matches an `{ api_id, error }` body with exactly this message. */
export function errorWith(message: string): unknown {
  return { api_id: expect.stringMatching(uuidPattern), error: message };
}
