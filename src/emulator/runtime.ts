import { randomInt, randomUUID } from 'node:crypto';
import { RequestLog } from './request-log.js';
import { createAccountState, type AccountState, type EmulatorState } from './state.js';
import type { EmulatorConfig } from './options.js';

/** Called for every new account, e.g. to seed the documented profiles. */
export type AccountInitializer = (account: AccountState, runtime: Runtime) => void;

/**
 * What every route can reach besides its account: the clock, id generators, the request log,
 * the configuration and the whole state. One per running emulator.
 */
export class Runtime {
  readonly log = new RequestLog();

  constructor(
    readonly config: EmulatorConfig,
    readonly state: EmulatorState,
    private readonly accountInitializers: readonly AccountInitializer[],
  ) {}

  /** The emulator's clock: the wall clock plus the offset the admin clock route has added. */
  now(): Date {
    return new Date(Date.now() + this.state.clockOffsetMs);
  }

  nowIso(): string {
    return this.now().toISOString();
  }

  advanceClock(milliseconds: number): void {
    this.state.clockOffsetMs += milliseconds;
  }

  /** Creates an account (seeded by every initializer) unless it exists; returns it. */
  ensureAccount(authId: string, authToken: string): AccountState {
    const existing = this.state.accounts.get(authId);
    if (existing) return existing;
    const account = createAccountState(authId, authToken);
    this.state.accounts.set(authId, account);
    for (const initialize of this.accountInitializers) initialize(account, this);
    return account;
  }

  uuid(): string {
    return randomUUID();
  }

  /** Trunk ids are numeric strings in production (production's documentation), 17 digits here. */
  numericId(): string {
    let id = String(randomInt(1, 10));
    for (let index = 0; index < 16; index += 1) id += String(randomInt(0, 10));
    return id;
  }

  /** 10DLC ids: 7 upper-case characters starting with a letter (`B…` brands, `C…` campaigns). */
  registryId(prefix: string): string {
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
    let id = prefix;
    while (id.length < 7) id += alphabet[randomInt(0, alphabet.length)];
    return id;
  }
}
