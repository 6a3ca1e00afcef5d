/**
 * State URLs (`postgres://USER[:PASSWORD]@HOST:PORT/DB[?password=…]`): told apart from paths, and
 * shown only without their secrets, in every message. The PostgreSQL driver takes a password from
 * the query string as well as from the user part (the query wins), and a client key's passphrase
 * as `sslpassword`: all of them are masked.
 */

export function isDatabaseUrl(state: string): boolean {
  return /^postgres(ql)?:\/\//i.test(state);
}

/** A database state as messages name it: the URL without its secrets, and the workspace. */
export function describeDatabaseState(url: string, workspace: string): string {
  return `${redactUrl(url)} (workspace ${workspace})`;
}

/** Query parameters of a connection string that hold a secret. */
const secretParameters = ['password', 'sslpassword'] as const;

/** The URL with every secret (user-part password, `password=` and `sslpassword=` parameters) replaced by `***`. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    for (const name of secretParameters) if (parsed.searchParams.has(name)) parsed.searchParams.set(name, '***');
    return parsed.toString();
  } catch {
    return url.replace(/\/\/([^:/@]*):[^@]*@/, '//$1:***@').replace(/([?&](?:ssl)?password=)[^&#]*/gi, '$1***');
  }
}

/** Removes a secret from a message that may quote it (a driver error naming its connection string). */
export function scrub(message: string, secret: string | undefined): string {
  return secret ? message.split(secret).join('***') : message;
}

/** The password the driver will use from the URL: the `password` parameter, else the user part's. */
export function urlPassword(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    const fromQuery = parsed.searchParams.get('password');
    if (fromQuery) return fromQuery;
    return parsed.password ? decodeURIComponent(parsed.password) : undefined;
  } catch {
    return undefined;
  }
}
