// SSH signatures read and made in process: against signatures `ssh-keygen -Y sign` made (when OpenSSH
// is on the machine), and ours checked by `ssh-keygen -Y verify`, so the envelope is the one git uses.
import { execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  parseSshPublicKey,
  readSshPrivateKey,
  signSsh,
  sshPublicKeyLine,
  verifySshSignature,
} from '../../src/util/ssh-signature.js';

const hasSshKeygen = (() => {
  try {
    execFileSync('ssh-keygen', ['-?'], { stdio: 'ignore' });
    return true;
  } catch (error) {
    return (error as { status?: number }).status !== undefined && (error as { code?: string }).code !== 'ENOENT';
  }
})();

describe('SSH signatures in process', () => {
  it('signs with an Ed25519 key and verifies only the same message, namespace and key', () => {
    const { privateKey } = generateKeyPairSync('ed25519');
    const armored = signSsh('the plan', 'telform-approval', privateKey);
    const checked = verifySshSignature(armored, 'the plan', 'telform-approval');
    expect(checked.ok).toBe(true);
    expect(checked.key?.fingerprint).toBe(parseSshPublicKey(sshPublicKeyLine(privateKey)).fingerprint);
    expect(verifySshSignature(armored, 'another plan', 'telform-approval')).toMatchObject({
      ok: false,
      reason: 'the signature does not match what was signed',
    });
    expect(verifySshSignature(armored, 'the plan', 'git')).toMatchObject({
      ok: false,
      reason: 'it was signed for "telform-approval", not git',
    });
    expect(verifySshSignature('hello', 'the plan', 'git')).toMatchObject({ ok: false });
  });

  it('reads a PKCS#8 PEM key and refuses other key types in process', () => {
    const { privateKey } = generateKeyPairSync('ed25519');
    const pem = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    expect(readSshPrivateKey(pem)?.asymmetricKeyType).toBe('ed25519');
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'pem', type: 'pkcs8' });
    expect(readSshPrivateKey(rsa.toString())).toBeUndefined();
  });

  it.runIf(hasSshKeygen)('agrees with ssh-keygen -Y both ways, for Ed25519, RSA and ECDSA keys', () => {
    const folder = mkdtempSync(path.join(tmpdir(), 'telform-sshsig-'));
    const message = path.join(folder, 'message');
    writeFileSync(message, 'digest 1234\n');
    for (const type of ['ed25519', 'rsa', 'ecdsa']) {
      const key = path.join(folder, type);
      execFileSync('ssh-keygen', ['-q', '-t', type, '-N', '', '-C', 'alice', '-f', key]);
      execFileSync('ssh-keygen', ['-Y', 'sign', '-q', '-f', key, '-n', 'telform-approval', message], {
        stdio: 'ignore',
      });
      const signature = readFileSync(`${message}.sig`, 'utf8');
      rmSync(`${message}.sig`);
      const checked = verifySshSignature(signature, readFileSync(message), 'telform-approval');
      expect(checked).toMatchObject({ ok: true });
      expect(checked.key?.fingerprint).toBe(parseSshPublicKey(readFileSync(`${key}.pub`, 'utf8')).fingerprint);
      expect(verifySshSignature(signature, 'digest 1235\n', 'telform-approval').ok).toBe(false);
    }
    // An OpenSSH-format Ed25519 key signs in process, and ssh-keygen verifies the signature.
    const privateKey = readSshPrivateKey(readFileSync(path.join(folder, 'ed25519'), 'utf8'));
    expect(privateKey).toBeDefined();
    writeFileSync(path.join(folder, 'ours.sig'), signSsh(readFileSync(message), 'telform-approval', privateKey!));
    writeFileSync(path.join(folder, 'allowed'), `alice ${readFileSync(path.join(folder, 'ed25519.pub'), 'utf8')}`);
    const verified = execFileSync(
      'ssh-keygen',
      [
        '-Y',
        'verify',
        '-f',
        path.join(folder, 'allowed'),
        '-I',
        'alice',
        '-n',
        'telform-approval',
        '-s',
        path.join(folder, 'ours.sig'),
      ],
      { input: readFileSync(message) },
    ).toString();
    expect(verified).toContain('Good "telform-approval" signature for alice');
  });
});
