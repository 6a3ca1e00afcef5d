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
  /** Its create is a submission the registry vets (a brand, a campaign): registering one again is a person's decision. */
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
