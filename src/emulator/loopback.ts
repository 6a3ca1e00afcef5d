import { isIPv4 } from 'node:net';

/**
 * Which hosts count as this machine. Callbacks go only to them (a local emulator must not reach out,
 * nor relay requests for anyone), and the CLI warns when the emulator listens anywhere else, since
 * the admin routes under `/__emulator/` need no authentication.
 */

/** True for `localhost`, `::1` and any IPv4 address in 127.0.0.0/8 (literal hosts only; no DNS lookup). */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase();
  if (host === 'localhost' || host === '[::1]' || host === '::1') return true;
  return isIPv4(host) && host.startsWith('127.');
}
