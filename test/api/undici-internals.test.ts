import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// The API client imports two files inside undici (its pool and its request function) to leave
// fetch, WebSocket and the rest unloaded. Those paths are not undici's public API, so the package
// is pinned to one version, and this test says so loudly when an upgrade moves them.

const repository = path.resolve(import.meta.dirname, '../..');
const require = createRequire(path.join(repository, 'package.json'));

describe('undici internals the client imports', () => {
  it('come from the exact undici version package.json pins', () => {
    const pinned = (JSON.parse(readFileSync(path.join(repository, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> }).devDependencies.undici;
    expect(pinned, 'undici must be pinned to an exact version (its internal paths are not public API)').toMatch(/^\d+\.\d+\.\d+$/);
    const installed = (JSON.parse(readFileSync(require.resolve('undici/package.json'), 'utf8')) as { version: string }).version;
    expect(installed).toBe(pinned);
  });

  it('still are a Pool class and a request function at the paths the client imports', () => {
    const Pool = require('undici/lib/dispatcher/pool.js') as unknown;
    const request = require('undici/lib/api/api-request.js') as unknown;
    expect(typeof Pool, 'undici/lib/dispatcher/pool.js moved: update src/api/client.ts and src/api/undici-parts.d.ts').toBe('function');
    expect((Pool as { name: string }).name).toBe('Pool');
    expect(typeof request, 'undici/lib/api/api-request.js moved: update src/api/client.ts and src/api/undici-parts.d.ts').toBe('function');
  });
});
