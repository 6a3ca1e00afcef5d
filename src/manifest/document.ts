import * as z from 'zod';
import type { KindCatalog } from '../resources/index.js';
import type { Kind, PathSegment } from '../resources/kind.js';
import { metadataName, metadataNamePattern } from '../resources/fields.js';
import type { HeldRule, ManifestResource, ResourceSource } from './model.js';
import { ProblemList, type ProblemCode } from './problems.js';
import type { Candidate } from './references.js';
import { checkRules } from './rules.js';
import { compileFastParse, invalid, type FastParse } from './schema-fast-parse.js';
import { toSecretSource } from './secrets.js';
import { childPointer, formatPath, placeOf, positionAt, toPointer } from './source.js';
import { didYouMean, suggest } from '../util/suggest.js';
import type { YamlDocument } from './yaml-document.js';
import { describeValue, validateWith, type IssueContext } from './zod-issues.js';

/**
 * One YAML document to one resource (docs/manifests.md): the envelope (`apiVersion`, `kind`,
 * `metadata`, `spec`), then the kind's spec schema, its conditional rules, set members, literal
 * secrets and checks. Every problem is collected; a document that has any error yields no
 * resource, but still a candidate for the checks across resources when its kind and name are known.
 */

export const apiVersion = 'telform/v1';

/** `Kind/name` of an address this resource was known under (docs/manifests.md, moves). */
const movedAddress = z.string().regex(/^[A-Za-z]+\/[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/, {
  error: 'must be an address like Trunk/old-name (Kind/metadata.name)',
});

export const movedFromSchema = z
  .union([movedAddress, z.array(movedAddress).min(1)])
  .describe(
    'Addresses (Kind/name) this resource was known under before a rename: the state follows it, nothing is created or deleted.',
  );

/** The envelope of every document. `kind` is checked by hand, for a "did you mean" over the kinds. */
export const envelopeSchema = z
  .strictObject({
    apiVersion: z
      .literal(apiVersion, {
        error: (issue) =>
          `must be ${apiVersion} (got ${issue.input === undefined ? 'nothing' : JSON.stringify(issue.input)})`,
      })
      .describe(`Always ${apiVersion}.`),
    kind: z.string().describe('The kind of resource.'),
    metadata: z
      .strictObject({
        name: metadataName,
        protect: z.boolean().optional().describe('true: telform refuses to delete or replace this resource.'),
        moved_from: movedFromSchema.optional(),
      })
      .describe('Manifest identity of the resource.'),
    spec: z.record(z.string(), z.unknown()).describe("The resource's fields, with the API's names."),
  })
  .describe('A telform manifest document.');

/** What checking a document reads of its kind, worked out once per kind. */
interface KindFacts {
  secrets: ReadonlyArray<readonly [field: string, rules: Kind['secrets'][string]]>;
  secretFields: readonly string[];
  setFields: ReadonlyArray<readonly [field: string, keyOf: Kind['setFields'][string]]>;
  fastParse: FastParse | undefined;
  /** The spec as far as types and known fields go: for a document whose other problems are all held values. */
  lenientParse: FastParse | undefined;
  /** The API name field, which defaults to metadata.name: its pointer, and the note on its messages. */
  nameDefault?: { field: string; pointer: string; notes: ReadonlyMap<string, string> };
}

const factsOfKind = new WeakMap<Kind, KindFacts>();

function factsOf(kind: Kind): KindFacts {
  let facts = factsOfKind.get(kind);
  if (!facts) {
    const field = kind.nameField;
    facts = {
      secrets: Object.entries(kind.secrets),
      secretFields: Object.keys(kind.secrets),
      setFields: Object.entries(kind.setFields),
      fastParse: compileFastParse(kind.spec),
      lenientParse: compileFastParse(kind.spec, true),
      ...(field === undefined
        ? {}
        : {
            nameDefault: {
              field,
              pointer: childPointer('/spec', field),
              notes: new Map([[toPointer([field]), `${field} defaults to metadata.name`]]),
            },
          }),
    };
    factsOfKind.set(kind, facts);
  }
  return facts;
}

export interface DocumentResult {
  candidate?: Candidate;
  resource?: ManifestResource;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function checkDocument(document: YamlDocument, catalog: KindCatalog, problems: ProblemList): DocumentResult {
  const positions = document.positions;
  const at = (path: readonly PathSegment[], role: 'value' | 'key' = 'value') =>
    placeOf(document.file, positionAt(positions, toPointer(path), role));
  const value = document.value;
  if (!isPlainObject(value)) {
    problems.error(
      'not_a_mapping',
      `a manifest document must be a mapping with apiVersion, kind, metadata and spec (got ${describeValue(value)})`,
      {
        source: at([]),
      },
    );
    return {};
  }
  const errorsBefore = problems.errorCount;

  // The kind first: it decides the spec schema and makes the address for every later message.
  const kindName = value['kind'];
  let kind: Kind | undefined;
  if (typeof kindName === 'string') {
    kind = catalog.get(kindName);
    if (!kind) {
      const hint = didYouMean(kindName, catalog.names) || `; known kinds: ${catalog.names.join(', ')}`;
      problems.error('invalid_value', `unknown kind "${kindName}"${hint}`, { source: at(['kind']), field: 'kind' });
    }
  }
  const metadata = isPlainObject(value['metadata']) ? value['metadata'] : undefined;
  const name = typeof metadata?.['name'] === 'string' ? metadata['name'] : undefined;
  const address = typeof kindName === 'string' && name !== undefined ? `${kindName}/${name}` : undefined;

  const context = (
    base: readonly PathSegment[],
    input: unknown,
    schema: z.ZodType,
    secretFields: readonly string[],
    into: ProblemList = problems,
  ): IssueContext => ({
    file: document.file,
    positions,
    address,
    base,
    input,
    schema,
    isSecret: (path) => path.length > 0 && secretFields.includes(String(path[0])),
    problems: into,
  });
  // The envelope of nearly every document is plainly right; zod is asked (for its messages) otherwise.
  const envelopeOk =
    isPlainEnvelope(value) || validateWith(envelopeSchema, value, () => context([], value, envelopeSchema, [])).ok;
  const nameValid = name !== undefined && metadataNamePattern.test(name);
  if (!kind) return {};

  const facts = factsOf(kind);
  const specInput = isPlainObject(value['spec']) ? { ...value['spec'] } : undefined;
  let notes: ReadonlyMap<string, string> | undefined;
  if (specInput && facts.nameDefault && !Object.hasOwn(specInput, facts.nameDefault.field) && name !== undefined) {
    notes = facts.nameDefault.notes;
    // The API name field defaults to metadata.name (docs/manifests.md); its problems point there.
    specInput[facts.nameDefault.field] = name;
    positions.alias(facts.nameDefault.pointer, '/metadata/name');
  }
  const source: ResourceSource = {
    file: document.file,
    absolute: document.absolute,
    document: document.index,
    positions,
  };
  const movedFrom = movedFromOf(metadata);
  let candidate: Candidate | undefined;
  if (specInput && address !== undefined && nameValid) {
    candidate = { kind, name: name as string, address, spec: specInput, source };
    if (movedFrom.length > 0) candidate.movedFrom = movedFrom;
  }
  if (!specInput) return candidate ? { candidate } : {};

  const secretFields = facts.secretFields;
  // The spec's problems are gathered apart: those that only judge a value (an enum, a length, a
  // format, a required field) are held values, warnings while the account holds them (docs/real-accounts.md).
  const local = new ProblemList();
  // A valid spec is parsed without zod (`schema-fast-parse.ts`); zod parses the rest, for its issues.
  const quick = facts.fastParse ? facts.fastParse(specInput) : invalid;
  const parsed =
    quick !== invalid
      ? { ok: true as const, value: quick }
      : validateWith(kind.spec, specInput, () => ({
          ...context(['spec'], specInput, kind.spec, secretFields, local),
          ...(notes ? { notes } : {}),
        }));
  const where = (path: readonly PathSegment[], role: 'value' | 'key' = 'value') => {
    const full = ['spec', ...path];
    return { source: at(full, role), ...(address === undefined ? {} : { address }), field: formatPath(full) };
  };
  // A misspelled field is reported as unknown, with its suggestion; not again as missing.
  const shape = kind.spec.shape;
  let misspelled: Set<string> | undefined;
  for (const key of Object.keys(specInput)) {
    const guess = key in shape ? undefined : suggest(key, Object.keys(shape));
    if (guess !== undefined) (misspelled ??= new Set()).add(guess);
  }
  for (const violation of checkRules(kind, specInput)) {
    if (violation.kind === 'missing' && misspelled && violation.fields.some((field) => misspelled.has(field))) continue;
    if (violation.field === undefined) local.error('rule', violation.message, where([], 'key'));
    else if (violation.kind === 'missing') local.error('missing_field', violation.message, where([violation.field]));
    else local.error('rule', violation.message, where([violation.field], 'key'));
  }
  checkLiteralSecrets(facts, specInput, local, where);
  const items = local.sorted([]);
  const onlyHeld = items.every((problem) => problem.severity !== 'error' || heldCodes.has(problem.code));
  // With nothing but held values wrong, the spec is still read (leniently), so the document plans.
  const specValue = parsed.ok ? parsed.value : onlyHeld && facts.lenientParse ? facts.lenientParse(specInput) : invalid;
  if (specValue === invalid || !onlyHeld) {
    for (const problem of items) problems.add(problem);
    return candidate ? { candidate } : {};
  }

  const spec = specValue as Record<string, unknown>;
  checkSetMembers(facts, spec, local, where);
  // The kinds' checks read a spec that meets its schema: a leniently read one skips them.
  for (const check of parsed.ok ? kind.checks : []) {
    check(spec, (path, finding) => {
      // A kind's own check guards telform itself (an ownership marker's name): an error, never held.
      if (finding.severity === 'error') problems.error('rule', finding.message, where(path));
      else local.warning('advice', finding.message, where(path));
    });
  }
  const held: HeldRule[] = [];
  for (const problem of local.sorted([])) {
    if (problem.severity !== 'error' || !heldCodes.has(problem.code)) {
      problems.add(problem);
      continue;
    }
    const topField = /^spec\.([^.[]+)/.exec(problem.field ?? '')?.[1];
    held.push({
      ...(topField === undefined ? {} : { field: topField }),
      message: problem.message,
      ...(problem.source ? { source: problem.source } : {}),
    });
    problems.add({ ...problem, severity: 'warning', code: 'held_value', message: `${problem.message}${heldNote}` });
  }
  if (!envelopeOk || problems.errorCount > errorsBefore || !candidate) return candidate ? { candidate } : {};

  for (const field of secretFields) {
    if (spec[field] !== undefined) spec[field] = toSecretSource(spec[field], document.absolute);
  }
  // Field by field, in the order the type lists them (no spreads: thousands of documents per run).
  const resource = {
    kind: kind.name,
    name: candidate.name,
    address: candidate.address,
    protect: (value['metadata'] as { protect?: unknown }).protect === true,
  } as ManifestResource;
  if (kind.nameField !== undefined && !Object.hasOwn(value['spec'] as object, kind.nameField))
    resource.nameDefaulted = true;
  if (movedFrom.length > 0) resource.movedFrom = [...movedFrom];
  resource.spec = spec;
  resource.source = source;
  if (held.length > 0) resource.held = held;
  return { candidate, resource };
}

/** Added to a held value's message: why it is only a warning, and when it stops being one. */
export const heldNote = ' (valid while the account holds it; a create, or a change of this field, must meet this rule)';

/** Problems that judge only a value, not its type or the field's existence: held values when the account holds them. */
const heldCodes = new Set<ProblemCode>([
  'missing_field',
  'invalid_value',
  'invalid_format',
  'too_short',
  'too_long',
  'too_small',
  'too_large',
  'rule',
]);

const noMoves: readonly string[] = [];

/** `metadata.moved_from` as a list of the addresses written (one or many); the envelope schema judges their form. */
function movedFromOf(metadata: Readonly<Record<string, unknown>> | undefined): readonly string[] {
  const value = metadata?.['moved_from'];
  if (value === undefined) return noMoves;
  const list = Array.isArray(value) ? value : value === undefined ? [] : [value];
  return list.filter((item): item is string => typeof item === 'string');
}

const envelopeKeys = ['apiVersion', 'kind', 'metadata', 'spec'];

/** What `envelopeSchema` accepts, checked by hand for speed (a test holds the two together). */
export function isPlainEnvelope(value: Readonly<Record<string, unknown>>): boolean {
  const keys = Object.keys(value);
  if (keys.length !== envelopeKeys.length || !envelopeKeys.every((key) => Object.hasOwn(value, key))) return false;
  const metadata = value['metadata'];
  if (
    value['apiVersion'] !== apiVersion ||
    typeof value['kind'] !== 'string' ||
    !isPlainObject(value['spec']) ||
    !isPlainObject(metadata)
  )
    return false;
  const metadataKeys = Object.keys(metadata);
  return (
    typeof metadata['name'] === 'string' &&
    metadataNamePattern.test(metadata['name']) &&
    metadataKeys.every((key) => key === 'name' || (key === 'protect' && typeof metadata['protect'] === 'boolean'))
  );
}

type Where = (
  path: readonly PathSegment[],
  role?: 'value' | 'key',
) => { source: ReturnType<typeof placeOf>; address?: string; field: string };

/**
 * A literal secret is accepted with a warning (docs/manifests.md) and, since its value is at
 * hand, checked against the password rules now; `fromEnv` / `fromFile` wait for `--check-secrets`.
 */
function checkLiteralSecrets(
  facts: KindFacts,
  spec: Readonly<Record<string, unknown>>,
  problems: ProblemList,
  where: Where,
): void {
  for (const [field, rules] of facts.secrets) {
    const value = spec[field];
    if (typeof value !== 'string' || value === '') continue;
    problems.warning(
      'literal_secret',
      'is a literal secret in the manifest; prefer { fromEnv: VARIABLE } or { fromFile: path } so it stays out of git',
      where([field]),
    );
    for (const finding of rules.check(value)) {
      if (finding.severity === 'error') problems.error('secret_rule', finding.message, where([field]));
      else problems.warning('secret_rule', finding.message, where([field]));
    }
  }
}

/** Two members of a set with one key (docs/commands.md, plan) would collapse into one: an error. */
function checkSetMembers(
  facts: KindFacts,
  spec: Readonly<Record<string, unknown>>,
  problems: ProblemList,
  where: Where,
): void {
  for (const [field, keyOf] of facts.setFields) {
    const members = spec[field];
    if (!Array.isArray(members)) continue;
    const firstIndex = new Map<string, number>();
    members.forEach((member, index) => {
      const key = keyOf(member);
      const first = firstIndex.get(key);
      if (first === undefined) {
        firstIndex.set(key, index);
        return;
      }
      const firstWhere = where([field, first]).source;
      problems.error(
        'duplicate_member',
        `${key} is listed twice (first at line ${firstWhere.line}); ${field} is a set`,
        {
          ...where([field, index]),
          related: firstWhere,
        },
      );
    });
  }
}
