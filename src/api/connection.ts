import { ConnectionConfigError } from './errors.js';

/** Production's base URL (docs/commands.md, connecting to the API). */
export const productionEndpoint = 'https://api.plivo.com';

export interface Credentials {
  authId: string;
  authToken: string;
}

/**
 * Where a run sends its requests: a remote base URL with credentials, or the embedded emulator
 * (which the CLI starts; the client then gets its URL and credentials like any remote).
 */
export type ConnectionTarget =
  | { kind: 'remote'; baseUrl: string; credentials: Credentials; credentialSource: string }
  | { kind: 'local'; reason: 'requested' | 'no-credentials' };

export interface ConnectionInputs {
  /** `--endpoint`, if given. */
  endpointFlag?: string | undefined;
  env: Readonly<Record<string, string | undefined>>;
}

/**
 * Resolves endpoint and credentials exactly as docs/commands.md, connecting to the API says:
 * - the endpoint comes from `--endpoint` or `TELFORM_ENDPOINT`; `local` means the embedded emulator;
 * - credentials only from `TELFORM_AUTH_ID`/`TELFORM_AUTH_TOKEN`, else `PLIVO_AUTH_ID`/`PLIVO_AUTH_TOKEN`;
 * - credentials without an endpoint mean production; neither means the embedded emulator, except
 *   when `CI` is set: a pipeline that lost its credentials must fail, not "apply" to an emulator.
 */
export function resolveConnection({ endpointFlag, env }: ConnectionInputs): ConnectionTarget {
  const endpoint = nonEmpty(endpointFlag) ?? nonEmpty(env.TELFORM_ENDPOINT);
  const credentials = readCredentials(env);

  if (endpoint === 'local') return { kind: 'local', reason: 'requested' };

  if (endpoint === undefined) {
    if (credentials) return { kind: 'remote', baseUrl: productionEndpoint, ...credentials };
    if (nonEmpty(env.CI) !== undefined) {
      throw new ConnectionConfigError(
        'no API credentials in this CI run: set TELFORM_AUTH_ID and TELFORM_AUTH_TOKEN, or pass --endpoint local to use the embedded emulator on purpose',
      );
    }
    return { kind: 'local', reason: 'no-credentials' };
  }

  const baseUrl = parseBaseUrl(endpoint);
  if (!credentials) {
    throw new ConnectionConfigError(
      `no API credentials for ${baseUrl}: set TELFORM_AUTH_ID and TELFORM_AUTH_TOKEN (or PLIVO_AUTH_ID and PLIVO_AUTH_TOKEN)`,
    );
  }
  return { kind: 'remote', baseUrl, ...credentials };
}

function readCredentials(
  env: ConnectionInputs['env'],
): { credentials: Credentials; credentialSource: string } | undefined {
  for (const prefix of ['TELFORM', 'PLIVO']) {
    const authId = nonEmpty(env[`${prefix}_AUTH_ID`]);
    const authToken = nonEmpty(env[`${prefix}_AUTH_TOKEN`]);
    if (authId && authToken) return { credentials: { authId, authToken }, credentialSource: prefix };
    if (authId || authToken) {
      const missing = authId ? `${prefix}_AUTH_TOKEN` : `${prefix}_AUTH_ID`;
      throw new ConnectionConfigError(
        `${missing} is not set while ${authId ? `${prefix}_AUTH_ID` : `${prefix}_AUTH_TOKEN`} is: set both`,
      );
    }
  }
  return undefined;
}

function parseBaseUrl(endpoint: string): string {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw new ConnectionConfigError(
      `endpoint "${endpoint}" is not a URL (expected e.g. https://api.plivo.com, or "local")`,
    );
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new ConnectionConfigError(`endpoint "${endpoint}" must use http or https`);
  }
  if (url.username || url.password) {
    throw new ConnectionConfigError(
      'the endpoint must not carry credentials; set TELFORM_AUTH_ID and TELFORM_AUTH_TOKEN instead',
    );
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}
