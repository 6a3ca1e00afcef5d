/**
 * State URLs (`postgres://USER[:PASSWORD]@HOST:PORT/DB`): told apart from paths, and shown only
 * without their password, in every message.
 */

export function isDatabaseUrl(state: string): boolean {
  return /^postgres(ql)?:\/\//i.test(state);
}

/** The URL with its password replaced by `***` (or as it was, when it does not parse). */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return url.replace(/\/\/([^:/@]*):[^@]*@/, '//$1:***@');
  }
}

/** Removes a secret from a message that may quote it (a driver error naming its connection string). */
export function scrub(message: string, secret: string | undefined): string {
  return secret ? message.split(secret).join('***') : message;
}

export function urlPassword(url: string): string | undefined {
  try {
    const password = new URL(url).password;
    return password ? decodeURIComponent(password) : undefined;
  } catch {
    return undefined;
  }
}
