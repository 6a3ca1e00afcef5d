import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { inspect } from 'node:util';

/**
 * Secrets in manifests (DESIGN.md section 3; issue #5, item 5): a write-only field (`password`)
 * holds `{ fromEnv: VAR }`, `{ fromFile: path }` (relative to the manifest that names it) or a
 * literal string (accepted with a warning). Only plan/apply and `validate --check-secrets`
 * resolve them, so CI can validate without secrets.
 *
 * A secret value is only ever held in a `Sensitive`, which prints, logs and serialises as
 * `(sensitive)`; the value is read with `reveal()`, by the code that sends or fingerprints it.
 */
export class Sensitive {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
  }

  reveal(): string {
    return this.#value;
  }

  toString(): string {
    return '(sensitive)';
  }

  toJSON(): string {
    return '(sensitive)';
  }

  [inspect.custom](): string {
    return '(sensitive)';
  }
}

/** Where a secret comes from; the desired model holds these, never resolved values. */
export type SecretSource =
  | { source: 'env'; name: string }
  /** `path` is absolute (resolved against the manifest's folder); `written` is as in the manifest. */
  | { source: 'file'; path: string; written: string }
  | { source: 'literal'; value: Sensitive };

export function isSecretSource(value: unknown): value is SecretSource {
  return (
    typeof value === 'object' &&
    value !== null &&
    'source' in value &&
    ((value as { source: unknown }).source === 'env' ||
      (value as { source: unknown }).source === 'file' ||
      (value as { source: unknown }).source === 'literal')
  );
}

/**
 * Turns a validated manifest value (a string, `{ fromEnv }` or `{ fromFile }`) into its source.
 * The schema has checked the shape already.
 */
export function toSecretSource(raw: unknown, manifestAbsolutePath: string): SecretSource {
  if (typeof raw === 'string') return { source: 'literal', value: new Sensitive(raw) };
  const object = raw as { fromEnv?: string; fromFile?: string };
  if (object.fromEnv !== undefined) return { source: 'env', name: object.fromEnv };
  const written = object.fromFile as string;
  return { source: 'file', path: path.resolve(path.dirname(manifestAbsolutePath), written), written };
}

/** How a source is described in messages: never the value. */
export function describeSecretSource(source: SecretSource): string {
  switch (source.source) {
    case 'env':
      return `environment variable ${source.name}`;
    case 'file':
      return `file ${source.written}`;
    case 'literal':
      return 'literal value';
    default: {
      const never: never = source;
      return never;
    }
  }
}

/** Largest secret file read: a password is short; a bigger file is the wrong file. */
export const maxSecretFileBytes = 64 * 1024;

export type SecretResolution = { ok: true; value: Sensitive } | { ok: false; message: string };

export interface SecretEnvironment {
  env: Readonly<Record<string, string | undefined>>;
}

/**
 * Resolves a secret. A file's content is used without one trailing line break (`echo pw > file`
 * writes one); other whitespace is kept, as it may be part of the password. An unset or empty
 * variable and an empty file are failures: an empty password is never what was meant.
 */
export async function resolveSecret(source: SecretSource, environment: SecretEnvironment): Promise<SecretResolution> {
  switch (source.source) {
    case 'literal':
      return { ok: true, value: source.value };
    case 'env': {
      const value = environment.env[source.name];
      if (value === undefined) return { ok: false, message: `environment variable ${source.name} is not set` };
      if (value === '') return { ok: false, message: `environment variable ${source.name} is empty` };
      return { ok: true, value: new Sensitive(value) };
    }
    case 'file': {
      let text: string;
      try {
        const info = await stat(source.path);
        if (!info.isFile()) return { ok: false, message: `secret file ${source.written} is not a file` };
        if (info.size > maxSecretFileBytes) return { ok: false, message: `secret file ${source.written} is larger than ${maxSecretFileBytes / 1024} KB` };
        text = await readFile(source.path, 'utf8');
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        const reason = code === 'ENOENT' ? 'does not exist' : code === 'EACCES' || code === 'EPERM' ? 'cannot be read (permission denied)' : 'cannot be read';
        return { ok: false, message: `secret file ${source.written} ${reason}` };
      }
      const value = text.replace(/\r?\n$/, '');
      if (value === '') return { ok: false, message: `secret file ${source.written} is empty` };
      return { ok: true, value: new Sensitive(value) };
    }
    default: {
      const never: never = source;
      return never;
    }
  }
}
