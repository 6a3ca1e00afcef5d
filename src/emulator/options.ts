/**
 * Options of `startEmulator` and of `telform emulator`. Every option has a default, so
 * `startEmulator()` alone gives a working emulator with the documented default account.
 */
export interface EmulatorAccount {
  authId: string;
  authToken: string;
}

export interface EmulatorOptions {
  /** Default `127.0.0.1`. */
  host?: string;
  /** Default 0: any free port. */
  port?: number;
  /** Accounts served; default one account, `defaultAccount`. */
  accounts?: EmulatorAccount[];
  /** How long the registry simulator keeps brands and campaigns `PROCESSING`, in ms. */
  registryDelayMs?: number;
  /** Shape of the trunk GET body: production nests it under `object` (api-facts.md section 2b). */
  trunkGetShape?: 'object' | 'flat';
}

/** The options with every default filled in. */
export interface EmulatorConfig {
  host: string;
  port: number;
  accounts: EmulatorAccount[];
  registryDelayMs: number;
  trunkGetShape: 'object' | 'flat';
}

/** The account served when none is configured; documented in the README. */
export const defaultAccount: EmulatorAccount = {
  authId: 'MAEMULATOR0000000001',
  authToken: 'emulator-auth-token-0000000000000000001',
};

export function resolveOptions(options: EmulatorOptions = {}): EmulatorConfig {
  return {
    host: options.host ?? '127.0.0.1',
    port: options.port ?? 0,
    accounts: options.accounts && options.accounts.length > 0 ? options.accounts : [defaultAccount],
    registryDelayMs: options.registryDelayMs ?? 5_000,
    trunkGetShape: options.trunkGetShape ?? 'object',
  };
}
