import type { SourcePlace } from '../util/errors.js';
import type { KindCatalog } from '../resources/index.js';
import type { Kind } from '../resources/kind.js';
import { DependencyGraph } from '../util/graph.js';
import { isRef, type ResourceSource } from './model.js';
import { describeScope, scopeHasKind, scopeHolds, type Scope } from '../resources/ownership-scope.js';
import type { Pacer } from '../util/pace.js';
import type { ProblemList } from './problems.js';
import { didYouMean } from '../util/suggest.js';
import { formatPath, placeOf, positionAt, toPointer, type PathSegment } from './source.js';

/**
 * Checks across resources: duplicate `metadata.name` within a kind, duplicate
 * values of a kind's unique fields, `{ ref: name }` naming a missing resource or one of the wrong
 * kind, and reference cycles. Every message names both places. The reference graph is built
 * here so the engine orders its work by the same edges.
 */

/** A resource as far as it was understood: even one with spec errors takes part, so every problem shows at once. */
export interface Candidate {
  kind: Kind;
  name: string;
  address: string;
  /** The spec as written, plus the API name field defaulted to `metadata.name`. */
  spec: Readonly<Record<string, unknown>>;
  source: ResourceSource;
  /** `metadata.moved_from`, as written. */
  movedFrom?: readonly string[];
}

/** A resolved `{ ref }` of one resource to another. */
interface ReferenceEdge {
  from: string;
  field: string;
  to: string;
}

function place(candidate: Candidate, path: readonly PathSegment[], role: 'value' | 'key' = 'value'): SourcePlace {
  return placeOf(candidate.source.file, positionAt(candidate.source.positions, toPointer(path), role));
}

function formatPlace(where: SourcePlace): string {
  return `${where.file}:${where.line}:${where.column}`;
}

export async function checkAcrossResources(
  candidates: readonly Candidate[],
  catalog: KindCatalog,
  problems: ProblemList,
  pacer: Pacer,
  scope?: Scope,
): Promise<void> {
  const byAddress = checkDuplicateNames(candidates, problems);
  if (pacer.due()) await pacer.breathe();
  await checkUniqueFields(candidates, problems, pacer);
  // A cycle of resources follows a cycle of their kinds' references; with none, there is nothing to find.
  const canCycle = kindsCanCycle(catalog);
  const edges = await checkRefs(candidates, byAddress, catalog, problems, canCycle, pacer, scope);
  if (pacer.due()) await pacer.breathe();
  if (canCycle) checkCycles(edges, byAddress, problems);
}

const cyclesOfCatalog = new WeakMap<KindCatalog, boolean>();

/** Whether the kinds' references form a cycle (a kind referring to itself included). */
function kindsCanCycle(catalog: KindCatalog): boolean {
  let found = cyclesOfCatalog.get(catalog);
  if (found === undefined) {
    const graph = new DependencyGraph();
    for (const kind of catalog.kinds)
      for (const target of Object.values(kind.references)) graph.addEdge(kind.name, target);
    found = graph.findCycles().length > 0;
    cyclesOfCatalog.set(catalog, found);
  }
  return found;
}

/** What the checks across resources read of a kind, worked out once per kind. */
interface AcrossFacts {
  /** Unique fields, then the name field when a duplicate of it is only a warning; each with its path. */
  unique: ReadonlyArray<{ field: string; path: readonly string[]; warnOnly: boolean }>;
  references: ReadonlyArray<readonly [field: string, targetKind: string]>;
}

const factsOfKind = new WeakMap<Kind, AcrossFacts>();

function factsOf(kind: Kind): AcrossFacts {
  let facts = factsOfKind.get(kind);
  if (!facts) {
    const nameField = kind.nameField;
    const warnOnly = nameField !== undefined && !kind.uniqueFields.includes(nameField) ? [nameField] : [];
    facts = {
      unique: [
        ...kind.uniqueFields.map((field) => ({ field, path: field.split('.'), warnOnly: false })),
        ...warnOnly.map((field) => ({ field, path: field.split('.'), warnOnly: true })),
      ],
      references: Object.entries(kind.references),
    };
    factsOfKind.set(kind, facts);
  }
  return facts;
}

function checkDuplicateNames(candidates: readonly Candidate[], problems: ProblemList): Map<string, Candidate> {
  const byAddress = new Map<string, Candidate>();
  for (const candidate of candidates) {
    const first = byAddress.get(candidate.address);
    if (!first) {
      byAddress.set(candidate.address, candidate);
      continue;
    }
    problems.error(
      'duplicate_name',
      `${candidate.address} is already defined at ${formatPlace(place(first, ['metadata', 'name']))}; metadata.name must be unique per kind`,
      {
        source: place(candidate, ['metadata', 'name']),
        address: candidate.address,
        field: 'metadata.name',
        related: place(first, ['metadata', 'name']),
      },
    );
  }
  return byAddress;
}

function valueAtPath(spec: Readonly<Record<string, unknown>>, path: readonly string[]): unknown {
  let current: unknown = spec;
  for (const key of path) {
    if (current === null || typeof current !== 'object' || !Object.hasOwn(current, key)) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

async function checkUniqueFields(candidates: readonly Candidate[], problems: ProblemList, pacer: Pacer): Promise<void> {
  // By kind, then field, then the value as text (a number and its digits collide, as in the API).
  const seen = new Map<string, Map<string, Map<string, Candidate>>>();
  for (const candidate of candidates) {
    if (pacer.due()) await pacer.breathe();
    let byField = seen.get(candidate.kind.name);
    if (!byField) seen.set(candidate.kind.name, (byField = new Map()));
    for (const { field, path: fieldPath, warnOnly } of factsOf(candidate.kind).unique) {
      const value = valueAtPath(candidate.spec, fieldPath);
      if (typeof value !== 'string' && typeof value !== 'number') continue;
      let byValue = byField.get(field);
      if (!byValue) byField.set(field, (byValue = new Map()));
      const key = typeof value === 'string' ? value : String(value);
      const first = byValue.get(key);
      if (!first) {
        byValue.set(key, candidate);
        continue;
      }
      if (first.address === candidate.address) continue; // already a duplicate name
      const path = ['spec', ...fieldPath];
      const where = {
        source: place(candidate, path),
        address: candidate.address,
        field: formatPath(path),
        related: place(first, path),
      };
      if (warnOnly) {
        problems.warning(
          'duplicate_value',
          `${field} ${JSON.stringify(value)} is also used by ${first.address} (${formatPlace(place(first, path))}); the API allows it, but telform can then tell them apart only by the ids in the state`,
          where,
        );
      } else {
        problems.error(
          'duplicate_value',
          `${field} ${JSON.stringify(value)} is also used by ${first.address} (${formatPlace(place(first, path))}); telform tells ${candidate.kind.name} resources apart by it`,
          where,
        );
      }
    }
  }
}

/** Reports references to missing or unfit resources; answers the references found when `wantEdges`. */
async function checkRefs(
  candidates: readonly Candidate[],
  byAddress: ReadonlyMap<string, Candidate>,
  catalog: KindCatalog,
  problems: ProblemList,
  wantEdges: boolean,
  pacer: Pacer,
  scope: Scope | undefined,
): Promise<ReferenceEdge[]> {
  // Resources by name across kinds, only when a reference misses (for its message).
  let kindsByName: Map<string, Candidate[]> | undefined;
  const sameNamed = (name: string): Candidate[] => {
    if (!kindsByName) {
      kindsByName = new Map();
      for (const candidate of byAddress.values()) {
        const same = kindsByName.get(candidate.name);
        if (same) same.push(candidate);
        else kindsByName.set(candidate.name, [candidate]);
      }
    }
    return kindsByName.get(name) ?? [];
  };
  const byKind = new Map<string, Map<string, Candidate>>();
  for (const candidate of byAddress.values()) {
    const named = byKind.get(candidate.kind.name);
    if (named) named.set(candidate.name, candidate);
    else byKind.set(candidate.kind.name, new Map([[candidate.name, candidate]]));
  }
  const edges: ReferenceEdge[] = [];
  for (const candidate of candidates) {
    if (pacer.due()) await pacer.breathe();
    const references = factsOf(candidate.kind).references;
    if (references.length === 0 || byAddress.get(candidate.address) !== candidate) continue; // none, or a duplicate: reported already
    for (const [field, targetKind] of references) {
      const value = candidate.spec[field];
      if (!isRef(value)) continue;
      const target = byKind.get(targetKind)?.get(value.ref);
      if (target) {
        if (wantEdges) edges.push({ from: candidate.address, field, to: target.address });
        const misfit = candidate.kind.referenceRules?.[field]?.(target.spec);
        if (misfit) {
          const targetAddress = target.address;
          const path = ['spec', field, 'ref'];
          problems.error(
            'ref_unsuitable',
            `${targetAddress} (${formatPlace(place(target, ['metadata', 'name']))}) ${misfit}`,
            {
              source: place(candidate, path),
              address: candidate.address,
              field: formatPath(path),
            },
          );
        }
        continue;
      }
      // Another scope's object: looked up in the account by its name when planning, never written.
      if (scope && !scopeHolds(scope, targetKind, value.ref)) continue;
      // Places only for problems: finding one may parse the file again (see yaml-fast.ts).
      const path = ['spec', field, 'ref'];
      const where = { source: place(candidate, path), address: candidate.address, field: formatPath(path) };
      const sameName = sameNamed(value.ref).filter((other) => catalog.get(other.kind.name) !== undefined);
      const other = sameName[0];
      if (other) {
        const otherPlace = place(other, ['metadata', 'name']);
        problems.error(
          'ref_wrong_kind',
          `"${value.ref}" is ${withArticle(other.kind.name)} (${formatPlace(otherPlace)}), but ${field} needs ${withArticle(targetKind)}`,
          { ...where, related: otherPlace },
        );
        continue;
      }
      const hint = didYouMean(value.ref, [...(byKind.get(targetKind)?.keys() ?? [])]);
      problems.error('ref_missing', `no ${targetKind} named "${value.ref}" in these manifests${hint}`, where);
    }
  }
  return edges;
}

/**
 * A document whose object lies outside the state's scope (its kind, or its API name against the
 * scope's prefix) belongs to another state: an error at its `metadata.name`.
 */
export function checkScope(candidates: readonly Candidate[], scope: Scope, problems: ProblemList): void {
  for (const candidate of candidates) {
    const nameField = candidate.kind.nameField;
    const apiName = nameField === undefined ? undefined : candidate.spec[nameField];
    if (scopeHolds(scope, candidate.kind.name, typeof apiName === 'string' ? apiName : undefined)) continue;
    const why = scopeHasKind(scope, candidate.kind.name)
      ? `its name does not start with ${JSON.stringify(scope.prefix)}`
      : `${candidate.kind.name} is not among its kinds`;
    problems.error(
      'out_of_scope',
      `${candidate.address} is outside the scope this state owns (${describeScope(scope)}): ${why}; another state owns it, so keep the document with that state's manifests (a { ref } to it is enough here)`,
      { source: place(candidate, ['metadata', 'name']), address: candidate.address, field: 'metadata.name' },
    );
  }
}

function checkCycles(
  edges: readonly ReferenceEdge[],
  byAddress: ReadonlyMap<string, Candidate>,
  problems: ProblemList,
): void {
  const graph = referenceGraph(edges);
  const fieldOf = new Map(edges.map((edge) => [`${edge.from}\u0000${edge.to}`, edge.field]));
  for (const cycle of graph.findCycles()) {
    const steps = cycle.slice(0, -1).map((from, index) => {
      const to = cycle[index + 1] as string;
      const field = fieldOf.get(`${from}\u0000${to}`) as string;
      const candidate = byAddress.get(from) as Candidate;
      return { from, to, field, place: place(candidate, ['spec', field, 'ref']) };
    });
    const first = steps[0] as (typeof steps)[number];
    const chain = steps
      .map((step) => `${step.from} ${step.field} (${formatPlace(step.place)}) → ${step.to}`)
      .join(', ');
    problems.error('ref_cycle', `reference cycle: ${chain}; no order can create these`, {
      source: first.place,
      address: first.from,
      field: `spec.${first.field}.ref`,
      ...(steps[1] ? { related: steps[1].place } : {}),
    });
  }
}

/** The dependency graph of references: an edge from each resource to what it refers to. */
function referenceGraph(edges: readonly ReferenceEdge[]): DependencyGraph {
  const graph = new DependencyGraph();
  for (const edge of edges) graph.addEdge(edge.from, edge.to);
  return graph;
}

/** "a Trunk", "an OriginationUri": the article a kind's name takes. */
function withArticle(kind: string): string {
  return `${/^[AEIOU]/.test(kind) ? 'an' : 'a'} ${kind}`;
}
