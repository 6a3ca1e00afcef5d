// Whether a kind's objects have a status at the 10DLC registry, declared by the kind (its `registry`)
// and read by serve: which objects it reports, which re-registrations it leaves to a person, and which
// registry callbacks name them. The status itself is what the kind's live read puts in
// `LiveObject.registry`; the plan carries it on each change.

/** How the registry's callbacks name an object of the kind. */
interface RegistryCallback {
  /** The callback `type`s about it (`brand`; `number_linking` and `number_unlinking`). */
  readonly types: readonly string[];
  /** The payload field holding its live id. */
  readonly idField: string;
  /** The live id from that field's value (a number without its `+`); left out: the value itself. */
  readonly id?: (value: string) => string;
  /**
   * Whether a callback without a known `type` names it when it carries `idField`. Of several such
   * kinds the one last in the catalog wins: the most specific (a campaign's callback names its brand too).
   */
  readonly untyped: boolean;
}

export interface KindRegistry {
  /**
   * Its create is a submission the registry vets (a brand, a campaign): registering one again is a
   * person's decision. A test (`telform test`) may have the registry approve or decline one under
   * review (`approve: Kind/name`), which the emulator's registry takes by its id in `callback.idField`.
   */
  readonly vetted: boolean;
  /**
   * Why an object of the kind, once deleted, cannot be registered again from the spec it had (a
   * brand: its profile registers one brand, ever); `revert` blocks it. Undefined: it can.
   */
  readonly registersOnce?: (spec: Readonly<Record<string, unknown>>) => string | undefined;
  /** The status serve reports when a read finds the object with no registration (a number linked to no campaign). */
  readonly unregistered: string;
  readonly callback: RegistryCallback;
}

type RegisteredKinds = readonly { readonly name: string; readonly registry?: KindRegistry }[];

/** The kinds whose objects a test may have the registry approve or decline: the vetted ones, in catalog order. */
export function decidedKinds(kinds: RegisteredKinds): string[] {
  return kinds.filter((kind) => kind.registry?.vetted === true).map((kind) => kind.name);
}

/**
 * How the emulator's registry names the object at `address` (`Kind/name`) with live id `id` when told
 * to decide it: its id in the field the registry's callbacks name it by. Undefined for a kind not vetted.
 */
export function decisionTarget(
  kinds: RegisteredKinds,
  address: string,
  id: string,
): Record<string, string> | undefined {
  const kindName = address.slice(0, address.indexOf('/'));
  const registry = kinds.find((kind) => kind.name === kindName)?.registry;
  return registry?.vetted === true ? { [registry.callback.idField]: id } : undefined;
}
