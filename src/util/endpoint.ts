// Endpoints as the state and saved plans compare them: one rule for both.

/** Names of this machine: `127.0.0.1` (any 127.x.y.z), `localhost` and `[::1]` are one host. */
const loopbackHosts = /^(?:localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;

/**
 * Whether two endpoints are the same: equal, or URLs that differ only in how they name this machine
 * (a state made against `http://127.0.0.1:PORT` serves `http://localhost:PORT` too).
 */
export function sameEndpoint(a: string, b: string): boolean {
  if (a === b) return true;
  let left: URL;
  let right: URL;
  try {
    left = new URL(a);
    right = new URL(b);
  } catch {
    return false;
  }
  if (!loopbackHosts.test(left.hostname) || !loopbackHosts.test(right.hostname)) return false;
  const trim = (url: URL) => `${url.protocol}//:${url.port}${url.pathname.replace(/\/+$/, '')}`;
  return trim(left) === trim(right);
}
