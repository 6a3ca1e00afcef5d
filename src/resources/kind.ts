import type * as z from 'zod';
import type { LiveSide } from './live-side.js';
import type { KindRegistry } from './registration.js';
import type { KindSnapshot } from './snapshot-record.js';
import type { KindTraffic } from './traffic.js';

/**
 * A kind of resource telform manages (`Trunk`, `Brand`, …): one plain object per kind, in its own
 * file in this folder, listed once in the catalog in `index.ts`. Everything the generic code needs to know about a kind is data here; the manifest loader,
 * validator, JSON Schema generator and planner never branch on a kind's name.
 *
 * ## Manifest side (this file)
 * The members below describe a kind's `spec` as written in manifests: its schema, defaults,
 * references, secrets, sets and the rules that hold without the network.
 *
 * ## Live side (`live`, see `live-side.ts`)
 * What a kind knows about the live API: the natural key a live object is matched by when the
 * ledger has no id (docs/state-and-safety.md), which fields are updatable, force a replace or are
 * immutable, billable updates, and `list` / `read` / `create` / `update` / `delete` with their
 * failure contracts. It reads the spec produced by the manifest side: defaults filled, refs
 * resolved to ids by the engine, secrets resolved from their sources.
 */
export interface Kind {
  /** The `kind:` of a manifest document, PascalCase. Unique in the catalog. */
  readonly name: string;
  /** One line, shown in `--help`, the README and the JSON Schema. */
  readonly description: string;
  /**
   * The zod schema of `spec`: a strict object (unknown fields are errors, so a typo is never
   * silently ignored), with the API's own parameter names. Static defaults (docs/manifests.md:
   * a field left out means the API's default) are zod `.default()`s, so they are filled in the
   * parsed spec and shown in the JSON Schema. Fields needed only in some shapes are `.optional()`
   * here and required or forbidden by `rules`. No transforms: the schema must convert to JSON Schema.
   */
  readonly spec: SpecSchema;
  /**
   * The API's own name field (`name`, `username`, `brand_alias`, `campaign_alias`), which defaults
   * to `metadata.name` (docs/manifests.md). Optional in `spec`; filled before validation, so its
   * rules apply to the default too. Undefined for kinds without one.
   */
  readonly nameField: string | undefined;
  /**
   * Fields holding another resource's identifier, and the kind each points to. Such a field takes
   * a literal id (a resource telform does not manage) or `{ ref: <metadata.name> }` of a resource
   * of that kind in the manifests. Top-level fields of `spec` only.
   */
  readonly references: Readonly<Record<string, string>>;
  /**
   * What a referred resource must be, judged on its spec: a sentence saying why it does not fit, or
   * undefined. Checked by `validate` on the manifest resource a `{ ref }` names, and by the planner
   * on the live object a reference points at (a phone number needs an inbound trunk).
   */
  readonly referenceRules?: Readonly<Record<string, ReferenceRule>>;
  /**
   * Write-only fields (never returned by the API; never printed by telform), each a
   * `{ fromEnv }`, `{ fromFile }` or literal in the manifest, with the rules its value obeys.
   */
  readonly secrets: Readonly<Record<string, SecretField>>;
  /**
   * Set-valued fields (order carries no meaning) and the key of a member: two members with one
   * key are a duplicate, and the planner compares sets by key (docs/commands.md, plan).
   */
  readonly setFields: Readonly<Record<string, (member: unknown) => string>>;
  /**
   * Fields (dotted paths into `spec`) whose value must differ between resources of this kind,
   * because the API refuses or cannot tell apart two objects with one value (a SIP username; a
   * profile makes one brand only). The API's name field where the API allows duplicates (ACL,
   * trunk, URI names, aliases) is not listed: an account made by hand may hold two "office" lists,
   * and an import must be able to describe it. A duplicate there is a warning, since telform then
   * tells the two apart by the ids in the state, not by name.
   */
  readonly uniqueFields: readonly string[];
  /** Conditional requirements between fields, as data (also written into the JSON Schema). */
  readonly rules: readonly SpecRule[];
  /**
   * The live side (see `live-side.ts`): reading, normalising, creating, updating and deleting the
   * kind's objects through the API, and which fields can change how.
   */
  readonly live: LiveSide;
  /**
   * Checks that need the whole parsed spec (defaults filled). They run only when the spec
   * matched its schema and `rules` held, and report through `report`; they must not throw.
   */
  readonly checks: readonly SpecCheck[];
  /**
   * The traffic its objects carry, route or let in, and so how a change breaks it (see `traffic.ts`):
   * the plan's blast radius reads this and names no kind. Left out: it carries no traffic.
   */
  readonly traffic?: KindTraffic;
  /**
   * Its objects' status at the 10DLC registry (see `registration.ts`): serve reports it, hears the
   * registry's callbacks about it, and leaves a re-registration to a person. Left out: none.
   */
  readonly registry?: KindRegistry;
  /**
   * How an ownership scope (`--scope`, `state claim`, an accounts file's `scope:`) names the kind: its
   * two-letter code in a marker's name, unique in the catalog, and the preset it belongs to (see
   * `ownership-scope.ts`).
   */
  readonly scope: KindScope;
  /**
   * What a snapshot of the account (`telform snapshot`, rehearsals, `telform test`'s `start:`) reads of
   * the kind and keeps (see `snapshot-record.ts`): where its objects are listed, the collection of the
   * emulator's seed format that holds them, and their fields.
   */
  readonly snapshot: KindSnapshot;
}

/**
 * How a scope names a kind: two letters, so a marker naming every kind and a prefix stays within the
 * API's 120 characters for an ACL name, and the preset (a team's share of an account: `voice`,
 * `messaging`) it belongs to.
 */
interface KindScope {
  readonly code: string;
  readonly preset: string;
}

export type ReferenceRule = (target: Readonly<Record<string, unknown>>) => string | undefined;

/** A strict zod object: the shape of every kind's `spec`. */
export type SpecSchema = z.ZodObject<Record<string, z.ZodType>, z.core.$strict>;

export type Primitive = string | number | boolean | null;

/**
 * When a rule applies, judged on the spec with defaults filled: `in` / `notIn` compare the
 * field's value (a rule with `notIn` does not apply while the field is absent); `present` asks
 * whether the field is given at all.
 */
export type Condition =
  | { readonly field: string; readonly in: readonly Primitive[] }
  | { readonly field: string; readonly notIn: readonly Primitive[] }
  | { readonly field: string; readonly present: boolean };

/**
 * A conditional requirement: when `when` holds, each `require` field must be given, at least one
 * of `requireOneOf`, and none of `forbid`. `reason` completes the message ("is required: <reason>"),
 * citing the spec rule behind it.
 */
export interface SpecRule {
  readonly when: Condition;
  readonly require?: readonly string[];
  readonly requireOneOf?: readonly string[];
  readonly forbid?: readonly string[];
  readonly reason: string;
}

export type PathSegment = string | number;

export interface Finding {
  readonly severity: 'error' | 'warning';
  /** One sentence; never the secret or any part of it. */
  readonly message: string;
}

/** A check of the parsed spec; `path` is relative to `spec`. */
export type SpecCheck = (
  spec: Readonly<Record<string, unknown>>,
  report: (path: readonly PathSegment[], finding: Finding) => void,
) => void;

export interface SecretField {
  /**
   * The rules a resolved value must meet, applied to literals by plain `validate` and to
   * `fromEnv` / `fromFile` values by `validate --check-secrets` (and by plan/apply).
   */
  readonly check: (value: string) => readonly Finding[];
}

/**
 * `build()` once, when first asked. Each kind's spec schema is built this way, by its `spec` getter:
 * zod builds a schema object per field and per `.describe()`, about 14 ms over every kind, and a run
 * that only reads the account (or starts its reads before the manifests load) needs none of them.
 */
export function builtOnce<T>(build: () => T): () => T {
  let built: T | undefined;
  return () => (built ??= build());
}
