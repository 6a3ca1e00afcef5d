/**
 * The changing account of the kill-point test: a seeded model of trunk IP ACLs, origination URIs,
 * SIP credentials and trunks, mutated between rounds so that every kind of write (create, update,
 * delete, replace) is in flight when an apply is killed, and rendered as manifests.
 */

interface Acl {
  addresses: string[];
}
interface Uri {
  port: number;
}
interface Credential {
  /** The username's generation: a new one replaces the credential (the API cannot rename it). */
  generation: number;
  password: string;
}
type Trunk = { secure: boolean } & ({ direction: 'outbound'; acl: string } | { direction: 'inbound'; uri: string });

export class World {
  readonly acls = new Map<string, Acl>();
  readonly uris = new Map<string, Uri>();
  readonly credentials = new Map<string, Credential>();
  readonly trunks = new Map<string, Trunk>();
  private next = 0;

  constructor(private readonly random: () => number) {
    for (let index = 0; index < 6; index += 1) this.addAcl();
    for (let index = 0; index < 6; index += 1) this.addUri();
    for (let index = 0; index < 5; index += 1) this.addCredential();
    for (let index = 0; index < 10; index += 1) this.addTrunk();
  }

  /** One round's changes: a few creates, updates, deletes and a replace. */
  mutate(): void {
    for (let count = 0; count < 2; count += 1) this.removeTrunk();
    this.removeUnused(this.acls, (trunk) => (trunk.direction === 'outbound' ? trunk.acl : undefined));
    this.removeUnused(this.uris, (trunk) => (trunk.direction === 'inbound' ? trunk.uri : undefined));
    this.removeCredential();
    for (let count = 0; count < 2; count += 1) this.addTrunk();
    this.addAcl();
    this.addUri();
    this.addCredential();
    for (const acl of this.pick([...this.acls.values()], 2)) acl.addresses = this.addresses();
    for (const uri of this.pick([...this.uris.values()], 2)) uri.port = 5060 + Math.floor(this.random() * 20);
    for (const trunk of this.pick([...this.trunks.values()], 2)) trunk.secure = !trunk.secure;
    for (const credential of this.pick([...this.credentials.values()], 1)) credential.password = this.password();
    for (const credential of this.pick([...this.credentials.values()], 1)) credential.generation += 1;
  }

  /** Environment variables holding the credentials' passwords (the manifests name them). */
  env(): Record<string, string> {
    return Object.fromEntries([...this.credentials].map(([name, credential]) => [envName(name), credential.password]));
  }

  /** The manifests, one YAML document per resource. */
  manifests(): string {
    const documents: object[] = [];
    for (const [name, acl] of this.acls) documents.push(doc('TrunkIpAcl', name, { ip_addresses: acl.addresses }));
    for (const [name, uri] of this.uris)
      documents.push(doc('OriginationUri', name, { uri: `pbx-${name}.example.net:${uri.port}` }));
    for (const [name, credential] of this.credentials) {
      documents.push(
        doc('SipCredential', name, {
          username: usernameOf(name, credential.generation),
          password: { fromEnv: envName(name) },
        }),
      );
    }
    for (const [name, trunk] of this.trunks) {
      const links =
        trunk.direction === 'outbound' ? { ipacl_uuid: { ref: trunk.acl } } : { primary_uri_uuid: { ref: trunk.uri } };
      documents.push(doc('Trunk', name, { trunk_direction: trunk.direction, secure: trunk.secure, ...links }));
    }
    return documents.map((document) => JSON.stringify(document)).join('\n---\n');
  }

  /** What the account must hold, as the emulator lists it: one sorted line per object. */
  expectedAccount(ids: { acl(name: string): string; uri(name: string): string }): string[] {
    const lines: string[] = [];
    for (const [name, acl] of this.acls) lines.push(`TrunkIpAcl ${name} ${[...acl.addresses].sort().join(',')}`);
    for (const [name, uri] of this.uris) lines.push(`OriginationUri ${name} pbx-${name}.example.net:${uri.port}`);
    for (const [name, credential] of this.credentials)
      lines.push(`SipCredential ${usernameOf(name, credential.generation)}`);
    for (const [name, trunk] of this.trunks) {
      const link = trunk.direction === 'outbound' ? `acl=${ids.acl(trunk.acl)}` : `uri=${ids.uri(trunk.uri)}`;
      lines.push(`Trunk ${name} ${trunk.direction} secure=${trunk.secure} ${link}`);
    }
    return lines.sort();
  }

  private addAcl(): void {
    this.acls.set(`kp-acl-${this.next++}`, { addresses: this.addresses() });
  }

  private addUri(): void {
    this.uris.set(`kp-uri-${this.next++}`, { port: 5060 + Math.floor(this.random() * 20) });
  }

  private addCredential(): void {
    this.credentials.set(`kp-cred-${this.next++}`, { generation: 0, password: this.password() });
  }

  private addTrunk(): void {
    const outbound = this.random() < 0.5;
    const secure = this.random() < 0.5;
    const name = `kp-trunk-${this.next++}`;
    if (outbound) this.trunks.set(name, { direction: 'outbound', acl: this.pickKey(this.acls), secure });
    else this.trunks.set(name, { direction: 'inbound', uri: this.pickKey(this.uris), secure });
  }

  private removeTrunk(): void {
    const [name] = this.pick([...this.trunks.keys()], 1);
    if (name !== undefined) this.trunks.delete(name);
  }

  private removeCredential(): void {
    if (this.credentials.size <= 3) return;
    const [name] = this.pick([...this.credentials.keys()], 1);
    if (name !== undefined) this.credentials.delete(name);
  }

  /** Drops one object no trunk refers to (a manifest cannot refer to a resource it does not hold). */
  private removeUnused<T>(collection: Map<string, T>, linkOf: (trunk: Trunk) => string | undefined): void {
    const used = new Set([...this.trunks.values()].map(linkOf));
    const unused = [...collection.keys()].filter((name) => !used.has(name));
    const [name] = this.pick(unused, 1);
    if (name !== undefined && collection.size > 2) collection.delete(name);
  }

  private addresses(): string[] {
    const count = 1 + Math.floor(this.random() * 3);
    return [...new Set(Array.from({ length: count }, () => `198.51.100.${1 + Math.floor(this.random() * 250)}`))];
  }

  private password(): string {
    return `Kp${Math.floor(this.random() * 1e9)}Secret`;
  }

  private pickKey<T>(collection: Map<string, T>): string {
    const keys = [...collection.keys()];
    return keys[Math.floor(this.random() * keys.length)] as string;
  }

  private pick<T>(items: T[], count: number): T[] {
    const pool = [...items];
    const picked: T[] = [];
    while (picked.length < count && pool.length > 0)
      picked.push(...pool.splice(Math.floor(this.random() * pool.length), 1));
    return picked;
  }
}

function doc(kind: string, name: string, spec: object): object {
  return { apiVersion: 'telform/v1', kind, metadata: { name }, spec };
}

function envName(name: string): string {
  return `KP_PASSWORD_${name.replace(/-/g, '_').toUpperCase()}`;
}

function usernameOf(name: string, generation: number): string {
  return `${name}-g${generation}`;
}
