// Where the browser tests find Chromium (Debian's package, or CHROMIUM_PATH), and what they do without it.
// Under CI=true a missing browser is a failure: `.ci/run` installs it, so a CI run that cannot find it has
// lost its browser checks and must say so, not pass. On a developer's machine the browser parts are skipped
// with one line saying why.
import { existsSync } from 'node:fs';
import { it } from 'vitest';

export const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const haveChromium = existsSync(chromiumPath);
const required = process.env.CI === 'true' || process.env.CI === '1';

// The machine's network is closed: Chromium's own background connections are switched off.
export const chromiumArgs = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Whether the browser parts of `suite` run; when they cannot, a warning locally and a failing test in CI. */
export function browserAvailable(suite: string): boolean {
  if (haveChromium) return true;
  const why = `${suite}: no Chromium at ${chromiumPath} (apt-get install -y chromium, or set CHROMIUM_PATH)`;
  if (required) {
    it('has a browser (CI=true requires one)', () => {
      throw new Error(`${why}; .ci/run installs it when it runs as root`);
    });
  } else {
    console.warn(`${why}: the browser part is skipped`);
  }
  return false;
}
