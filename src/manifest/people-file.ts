// The people file: who may approve, by which signing keys, in which roles. A file under review like
// the manifests (a change to it is a change of who may approve), named by the policy file's `people`.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { LineCounter, isMap, isScalar, isSeq, parseDocument, type Node } from 'yaml';
import { TelformError, type SourcePlace } from '../util/errors.js';
import { parseSshPublicKey, type SshPublicKey } from '../util/ssh-signature.js';

export interface Person {
  name: string;
  keys: SshPublicKey[];
  roles: string[];
}

export interface People {
  /** The file as the policy names it (messages say it). */
  file: string;
  people: Person[];
  /** The person a key belongs to, by its `SHA256:` fingerprint. */
  byFingerprint: ReadonlyMap<string, Person>;
}

const namePattern = /^[a-z0-9][a-z0-9._-]*$/;

/**
 * Reads a people file:
 *
 *     apiVersion: telform/v1
 *     kind: People
 *     people:
 *       alice:
 *         keys: ["ssh-ed25519 AAAA… alice@laptop"]
 *         roles: [messaging-leads]
 *
 * A key given to two people is refused (a signature must name one person). Problems are
 * `people_invalid` errors at their line and column.
 */
export async function loadPeopleFile(file: string, cwd: string, shown = file): Promise<People> {
  let source: string;
  try {
    source = await readFile(path.resolve(cwd, file), 'utf8');
  } catch (error) {
    throw new TelformError(
      'people_invalid',
      `${shown}: the people file cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
  const counter = new LineCounter();
  const document = parseDocument(source, { lineCounter: counter, prettyErrors: false });
  const at = (node: Node | null | undefined): SourcePlace => {
    const position = counter.linePos(node?.range?.[0] ?? 0);
    return { file: shown, line: position.line, column: position.col };
  };
  const fail = (node: Node | null | undefined, message: string): never => {
    throw new TelformError('people_invalid', message, { place: { source: at(node) } });
  };
  if (document.errors[0]) fail(undefined, `not valid YAML: ${document.errors[0].message.split('\n')[0] ?? ''}`);
  const root = document.contents;
  if (!isMap(root) || String(root.get('kind')) !== 'People' || String(root.get('apiVersion')) !== 'telform/v1')
    fail(root, 'a people file starts with apiVersion: telform/v1 and kind: People, then people');
  const list = (root as { get(key: string, keep: true): unknown }).get('people', true);
  if (!isMap(list) || list.items.length === 0) fail(root, 'people must map each person to their keys and roles');
  const people: Person[] = [];
  const byFingerprint = new Map<string, Person>();
  for (const pair of (list as { items: Array<{ key: unknown; value: unknown }> }).items) {
    const keyNode = pair.key as Node;
    const name = isScalar(keyNode) ? String(keyNode.value) : '';
    if (!namePattern.test(name))
      fail(keyNode, `${JSON.stringify(name)}: a person is named in lower case (alice, j.doe)`);
    const entry = pair.value as Node;
    if (!isMap(entry)) fail(entry, `${name}: give keys and roles`);
    for (const field of (entry as { items: Array<{ key: unknown }> }).items) {
      const key = isScalar(field.key) ? String(field.key.value) : '';
      if (key !== 'keys' && key !== 'roles')
        fail(field.key as Node, `${name}: unknown field ${key} (fields: keys, roles)`);
    }
    const keysNode = (entry as { get(key: string, keep: true): unknown }).get('keys', true) as Node | undefined;
    const rolesNode = (entry as { get(key: string, keep: true): unknown }).get('roles', true) as Node | undefined;
    if (!isSeq(keysNode) || keysNode.items.length === 0)
      fail(keysNode ?? entry, `${name}: keys must list at least one public key`);
    if (!isSeq(rolesNode)) fail(rolesNode ?? entry, `${name}: roles must be a list (it may be empty)`);
    const person: Person = { name, keys: [], roles: [] };
    for (const item of (keysNode as { items: unknown[] }).items) {
      const node = item as Node;
      if (!isScalar(node) || typeof node.value !== 'string') fail(node, `${name}: a key is a line of a .pub file`);
      let key: SshPublicKey;
      try {
        key = parseSshPublicKey((node as { value: string }).value);
      } catch (error) {
        fail(node, `${name}: ${(error as Error).message}`);
      }
      const owner = byFingerprint.get(key!.fingerprint);
      if (owner) fail(node, `${name}: the key ${key!.fingerprint} is also ${owner.name}'s; a key signs for one person`);
      byFingerprint.set(key!.fingerprint, person);
      person.keys.push(key!);
    }
    for (const item of (rolesNode as { items: unknown[] }).items) {
      const node = item as Node;
      if (!isScalar(node) || typeof node.value !== 'string' || !namePattern.test(node.value))
        fail(node, `${name}: a role is a name in lower case (messaging-leads)`);
      person.roles.push((node as { value: string }).value);
    }
    people.push(person);
  }
  return { file: shown, people, byFingerprint };
}

/** The people holding `role`, by name. */
export function holdersOf(people: People, role: string): string[] {
  return people.people.filter((person) => person.roles.includes(role)).map((person) => person.name);
}
