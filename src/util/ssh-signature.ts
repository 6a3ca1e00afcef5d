// SSH signatures as git and `ssh-keygen -Y` make them (the SSHSIG envelope: a magic preamble, the
// signer's public key, a namespace, the hash of the message and the signature over all of it),
// verified in process with node:crypto, so CI checks approvals offline without OpenSSH installed.
// Ed25519, RSA (rsa-sha2-256/512) and ECDSA P-256 keys verify; Ed25519 keys also sign here.
import { createHash, createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';

const magic = Buffer.from('SSHSIG');
const armorBegin = '-----BEGIN SSH SIGNATURE-----';
const armorEnd = '-----END SSH SIGNATURE-----';

/** A public key as an authorized_keys / allowed_signers line writes it. */
export interface SshPublicKey {
  /** `ssh-ed25519`, `ssh-rsa`, `ecdsa-sha2-nistp256`. */
  type: string;
  /** The key's wire form (what the signature envelope embeds). */
  blob: Buffer;
  /** `SHA256:…`, as `ssh-keygen -l` prints it. */
  fingerprint: string;
  key: KeyObject;
}

/** Reads SSH wire strings (uint32 length, then the bytes) one after another. */
class WireReader {
  #offset = 0;
  constructor(private readonly data: Buffer) {}
  bytes(): Buffer {
    if (this.#offset + 4 > this.data.length) throw new Error('cut short');
    const length = this.data.readUInt32BE(this.#offset);
    const start = this.#offset + 4;
    if (start + length > this.data.length) throw new Error('cut short');
    this.#offset = start + length;
    return this.data.subarray(start, start + length);
  }
  text(): string {
    return this.bytes().toString('utf8');
  }
  uint32(): number {
    if (this.#offset + 4 > this.data.length) throw new Error('cut short');
    const value = this.data.readUInt32BE(this.#offset);
    this.#offset += 4;
    return value;
  }
  raw(length: number): Buffer {
    if (this.#offset + length > this.data.length) throw new Error('cut short');
    const value = this.data.subarray(this.#offset, this.#offset + length);
    this.#offset += length;
    return value;
  }
}

function wire(...parts: Array<Buffer | string>): Buffer {
  return Buffer.concat(
    parts.map((part) => {
      const bytes = typeof part === 'string' ? Buffer.from(part, 'utf8') : part;
      const length = Buffer.alloc(4);
      length.writeUInt32BE(bytes.length);
      return Buffer.concat([length, bytes]);
    }),
  );
}

const base64url = (bytes: Buffer): string => bytes.toString('base64url');
/** An SSH mpint as unsigned big-endian bytes (its sign byte dropped). */
const unsigned = (bytes: Buffer): Buffer => (bytes[0] === 0 ? bytes.subarray(1) : bytes);
const padded = (bytes: Buffer, size: number): Buffer =>
  bytes.length >= size
    ? bytes.subarray(bytes.length - size)
    : Buffer.concat([Buffer.alloc(size - bytes.length), bytes]);

function sshFingerprint(blob: Buffer): string {
  return `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`;
}

/** A key from its wire form; throws with a reason for a type telform does not verify. */
function keyFromBlob(blob: Buffer): SshPublicKey {
  const reader = new WireReader(blob);
  const type = reader.text();
  let key: KeyObject;
  switch (type) {
    case 'ssh-ed25519':
      key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: base64url(reader.bytes()) }, format: 'jwk' });
      break;
    case 'ssh-rsa': {
      const e = unsigned(reader.bytes());
      const n = unsigned(reader.bytes());
      key = createPublicKey({ key: { kty: 'RSA', e: base64url(e), n: base64url(n) }, format: 'jwk' });
      break;
    }
    case 'ecdsa-sha2-nistp256': {
      if (reader.text() !== 'nistp256') throw new Error('an ecdsa-sha2-nistp256 key on another curve');
      const point = reader.bytes();
      if (point.length !== 65 || point[0] !== 4) throw new Error('an uncompressed P-256 point was expected');
      key = createPublicKey({
        key: { kty: 'EC', crv: 'P-256', x: base64url(point.subarray(1, 33)), y: base64url(point.subarray(33)) },
        format: 'jwk',
      });
      break;
    }
    default:
      throw new Error(`keys of type ${type} are not supported (use ssh-ed25519, ssh-rsa or ecdsa-sha2-nistp256)`);
  }
  return { type, blob, fingerprint: sshFingerprint(blob), key };
}

/** `ssh-ed25519 AAAA… comment` (an authorized_keys line) as a key; throws with a reason. */
export function parseSshPublicKey(line: string): SshPublicKey {
  const [type, encoded] = line.trim().split(/\s+/);
  if (!type || !encoded) throw new Error('a public key is written "TYPE BASE64 [comment]", as in a .pub file');
  const blob = Buffer.from(encoded, 'base64');
  const key = keyFromBlob(blob);
  if (key.type !== type) throw new Error(`the key says ${type} but holds a ${key.type} key`);
  return key;
}

/** The line of a .pub file for an Ed25519 key (tests and `approve` print it). */
export function sshPublicKeyLine(key: KeyObject, comment = ''): string {
  const x = key.export({ format: 'jwk' }).x;
  if (key.asymmetricKeyType !== 'ed25519' || typeof x !== 'string') throw new Error('an Ed25519 key was expected');
  const blob = wire('ssh-ed25519', Buffer.from(x, 'base64url'));
  return `ssh-ed25519 ${blob.toString('base64')}${comment ? ` ${comment}` : ''}`;
}

/** What the signature covers: the preamble, the namespace and the message's hash (PROTOCOL.sshsig). */
function signedData(namespace: string, hashAlgorithm: string, message: Buffer | string): Buffer {
  const digest = createHash(hashAlgorithm).update(message).digest();
  return Buffer.concat([magic, wire(namespace, '', hashAlgorithm, digest)]);
}

function armor(blob: Buffer): string {
  const lines = blob.toString('base64').match(/.{1,70}/g) ?? [];
  return `${armorBegin}\n${lines.join('\n')}\n${armorEnd}\n`;
}

type SshSignatureCheck = { ok: true; key: SshPublicKey } | { ok: false; reason: string; key?: SshPublicKey };

/**
 * Verifies an armored SSH signature over `message` in `namespace`: the envelope reads, its namespace
 * is this one, and the signature is the embedded key's. Which key is allowed is the caller's business
 * (the key is returned).
 */
export function verifySshSignature(armored: string, message: Buffer | string, namespace: string): SshSignatureCheck {
  const body = armored.trim();
  if (!body.startsWith(armorBegin) || !body.endsWith(armorEnd))
    return { ok: false, reason: 'it is not an SSH signature (-----BEGIN SSH SIGNATURE-----)' };
  const blob = Buffer.from(body.slice(armorBegin.length, body.length - armorEnd.length).replace(/\s+/g, ''), 'base64');
  let key: SshPublicKey;
  try {
    const reader = new WireReader(blob);
    if (!reader.raw(6).equals(magic)) return { ok: false, reason: 'its envelope does not start with SSHSIG' };
    const version = reader.uint32();
    if (version !== 1) return { ok: false, reason: `its envelope is version ${version}, not 1` };
    key = keyFromBlob(reader.bytes());
    const signedNamespace = reader.text();
    reader.bytes(); // reserved
    const hashAlgorithm = reader.text();
    const signature = new WireReader(reader.bytes());
    if (signedNamespace !== namespace)
      return { ok: false, key, reason: `it was signed for ${JSON.stringify(signedNamespace)}, not ${namespace}` };
    if (hashAlgorithm !== 'sha256' && hashAlgorithm !== 'sha512')
      return { ok: false, key, reason: `its hash ${hashAlgorithm} is not sha256 or sha512` };
    const algorithm = signature.text();
    const bytes = signature.bytes();
    const data = signedData(namespace, hashAlgorithm, message);
    let valid: boolean;
    if (algorithm === 'ssh-ed25519' && key.type === 'ssh-ed25519') valid = verify(null, data, key.key, bytes);
    else if ((algorithm === 'rsa-sha2-256' || algorithm === 'rsa-sha2-512') && key.type === 'ssh-rsa')
      valid = verify(algorithm === 'rsa-sha2-256' ? 'sha256' : 'sha512', data, key.key, bytes);
    else if (algorithm === 'ecdsa-sha2-nistp256' && key.type === 'ecdsa-sha2-nistp256') {
      const parts = new WireReader(bytes);
      const rs = Buffer.concat([padded(unsigned(parts.bytes()), 32), padded(unsigned(parts.bytes()), 32)]);
      valid = verify('sha256', data, { key: key.key, dsaEncoding: 'ieee-p1363' }, rs);
    } else return { ok: false, key, reason: `a ${algorithm} signature by a ${key.type} key is not accepted` };
    return valid ? { ok: true, key } : { ok: false, key, reason: 'the signature does not match what was signed' };
  } catch (error) {
    return { ok: false, reason: `its envelope cannot be read (${(error as Error).message})` };
  }
}

/** Signs `message` in `namespace` with an Ed25519 private key; the armored text `ssh-keygen -Y verify` accepts. */
export function signSsh(message: Buffer | string, namespace: string, privateKey: KeyObject): string {
  if (privateKey.asymmetricKeyType !== 'ed25519') throw new Error('only Ed25519 keys sign in process');
  const publicBlob = parseSshPublicKey(sshPublicKeyLine(createPublicKey(privateKey))).blob;
  const hashAlgorithm = 'sha512';
  const signature = sign(null, signedData(namespace, hashAlgorithm, message), privateKey);
  const envelope = Buffer.concat([
    magic,
    Buffer.from([0, 0, 0, 1]),
    wire(publicBlob, namespace, '', hashAlgorithm, wire('ssh-ed25519', signature)),
  ]);
  return armor(envelope);
}

/**
 * A private key file as a KeyObject: PEM (PKCS#8) or an unencrypted OpenSSH Ed25519 key. Undefined
 * for what this cannot read in process (an encrypted key, another type), which `ssh-keygen -Y sign` can.
 */
export function readSshPrivateKey(text: string): KeyObject | undefined {
  const openssh = /-----BEGIN OPENSSH PRIVATE KEY-----([\s\S]*?)-----END OPENSSH PRIVATE KEY-----/.exec(text);
  if (!openssh) {
    try {
      const key = createPrivateKey(text);
      return key.asymmetricKeyType === 'ed25519' ? key : undefined;
    } catch {
      return undefined;
    }
  }
  try {
    const data = Buffer.from((openssh[1] ?? '').replace(/\s+/g, ''), 'base64');
    const preamble = Buffer.from('openssh-key-v1\0');
    if (!data.subarray(0, preamble.length).equals(preamble)) return undefined;
    const reader = new WireReader(data.subarray(preamble.length));
    if (reader.text() !== 'none' || reader.text() !== 'none') return undefined; // encrypted
    reader.bytes(); // kdf options
    if (reader.uint32() !== 1) return undefined;
    reader.bytes(); // public key
    const secret = new WireReader(reader.bytes());
    if (secret.uint32() !== secret.uint32()) return undefined;
    if (secret.text() !== 'ssh-ed25519') return undefined;
    const publicKey = secret.bytes();
    const privateKey = secret.bytes();
    return createPrivateKey({
      key: { kty: 'OKP', crv: 'Ed25519', d: base64url(privateKey.subarray(0, 32)), x: base64url(publicKey) },
      format: 'jwk',
    });
  } catch {
    return undefined;
  }
}
