// Import of a large account: `npm run bench:import` (builds first).
//
// Starts the built emulator in-process, creates 1,000 resources through the API (SIP credentials
// and ACLs, trunk ACLs, credentials, origination URIs and trunks), then sets 20 ms of latency on
// every request and times `telform import` (the built CLI, a child process) against it.
// Target: under 10 s.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { startEmulator, defaultAccount } = await import(pathToFileURL(join(root, 'dist/emulator/index.js')).href);
const emulator = await startEmulator({});
const auth = `Basic ${Buffer.from(`${defaultAccount.authId}:${defaultAccount.authToken}`).toString('base64')}`;

async function post(path, body) {
  const response = await fetch(`${emulator.url}/v1/Account/${defaultAccount.authId}${path}`, {
    method: 'POST',
    headers: { authorization: auth, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = await response.json();
  if (response.status >= 300) throw new Error(`${path}: ${response.status} ${JSON.stringify(json)}`);
  return json;
}

async function inBatches(count, make) {
  const results = [];
  for (let start = 0; start < count; start += 50) {
    results.push(
      ...(await Promise.all(Array.from({ length: Math.min(50, count - start) }, (_, offset) => make(start + offset)))),
    );
  }
  return results;
}

const octets = (index) => `10.${Math.floor(index / 250)}.${index % 250}.1`;
await inBatches(200, (index) =>
  post('/SipAuth/Credential/', { username: `phone${index}`, password: `Phone-Pass-${index}x` }),
);
await inBatches(100, (index) =>
  post('/SipAuth/IpAccessControlList/', { name: `site ${index}`, entries: [{ ip: octets(index) }] }),
);
const acls = await inBatches(300, (index) =>
  post('/Zentrunk/IPAccessControlList/', { name: `acl-${index}`, ip_addresses: [octets(index)] }),
);
const credentials = await inBatches(200, (index) =>
  post('/Zentrunk/Credential/', { name: `login-${index}`, username: `user${index}x`, password: `Pass#${index}x` }),
);
const uris = await inBatches(100, (index) =>
  post('/Zentrunk/URI/', { name: `uri-${index}`, uri: `sip${index}.example.com` }),
);
await inBatches(100, (index) =>
  index % 2 === 0
    ? post('/Zentrunk/Trunk/', {
        name: `trunk-${index}`,
        trunk_direction: 'outbound',
        ipacl_uuid: acls[index].ipacl_uuid,
        credential_uuid: credentials[index].credential_uuid,
      })
    : post('/Zentrunk/Trunk/', {
        name: `trunk-${index}`,
        trunk_direction: 'inbound',
        primary_uri_uuid: uris[index].uri_uuid,
      }),
);
await fetch(`${emulator.url}/__emulator/faults/`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ latency: 20 }),
});

const folder = mkdtempSync(join(tmpdir(), 'telform-bench-import-'));
const started = performance.now();
// Asynchronously: the emulator lives in this process and must keep serving while the CLI runs.
const run = await new Promise((resolveRun, reject) => {
  const child = spawn(process.execPath, [join(root, 'dist/cli/main.js'), 'import', '--out', 'manifests', '--quiet'], {
    cwd: folder,
    env: {
      ...process.env,
      CI: '',
      TELFORM_ENDPOINT: emulator.url,
      TELFORM_AUTH_ID: defaultAccount.authId,
      TELFORM_AUTH_TOKEN: defaultAccount.authToken,
    },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  child.on('error', reject);
  child.on('close', (status) => resolveRun({ status, stdout, stderr }));
});
const seconds = (performance.now() - started) / 1000;
await emulator.close();
rmSync(folder, { recursive: true, force: true });
if (run.status !== 0) {
  process.stderr.write(run.stderr);
  process.exit(1);
}
process.stdout.write(`${run.stdout.split('\n')[0]}\n`);
process.stdout.write(
  `import of 1,000 resources with 20 ms latency per request: ${seconds.toFixed(2)} s (target: under 10 s)\n`,
);
process.exitCode = seconds < 10 ? 0 : 1;
