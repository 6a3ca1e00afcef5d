import { randomInt, randomUUID } from 'node:crypto';
import { RequestLog } from './request-log.js';
import { createAccountState, type AccountState, type EmulatorState } from './state.js';
import type { EmulatorConfig } from './options.js';

/**
 * What every new account starts with (the documented applications, numbers, profiles). Each is run
 * once per account, recorded by `name` in the account, so an account saved by an older emulator gets
 * the initializers added since when it is loaded, and never one twice.
 */
export interface AccountInitializer {
  name: string;
  /**
   * Run only for an account created now, never for one loaded from a data file (which is recorded as having
   * had it): a data file holding an account's objects, a snapshot for example, is kept exactly as it is.
   */
  newAccountsOnly?: boolean;
  initialize(account: AccountState, runtime: Runtime): void;
}

/** What an account saved before initializers were recorded had had: the applications and profiles. */
const legacyInitializers = ['applications', 'profiles'];

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
    account.initialized = [];
    this.state.accounts.set(authId, account);
    this.initialize(account, true);
    return account;
  }

  /** Runs the initializers the account has not had yet (all of them for a new account). */
  initialize(account: AccountState, isNew = false): void {
    const done = new Set(account.initialized ?? legacyInitializers);
    for (const initializer of this.accountInitializers) {
      if (done.has(initializer.name)) continue;
      if (isNew || !initializer.newAccountsOnly) initializer.initialize(account, this);
      done.add(initializer.name);
    }
    account.initialized = [...done];
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
