// Approval rules in the policy file (docs/approvals.md): which changes each rule covers (a CEL
// `match`), who must approve them (`needs: 2 of messaging-leads`, or `none`), how long an approval
// holds (`ttl`), when they may be applied (`windows` in a time zone), who may apply them outside a
// window by emergency; a fleet-wide `freeze`; and the `people` file of who holds which role.
import path from 'node:path';
import { isMap, isScalar, isSeq, type LineCounter, type Node, type YAMLMap } from 'yaml';
import { TelformError, type SourcePlace } from '../util/errors.js';
import { parseDuration } from '../util/duration.js';
import { compilePolicyExpression, readPolicyDocument, type CompiledExpression } from './policy-file.js';
import { loadPeopleFile, type People } from './people-file.js';

interface ChangeWindow {
  /** 0 Sunday … 6 Saturday. */
  days: number[];
  /** Minutes after midnight, in `zone`: from inclusive, to exclusive. */
  from: number;
  to: number;
  zone: string;
  /** As written: `mon-fri 09:00-17:00 America/Chicago`. */
  text: string;
}

export interface ApprovalRule {
  id: string;
  match: CompiledExpression;
  /** Null: `needs: none` (applied with no person, serve may heal it). */
  needs: { count: number; role: string } | null;
  /** How long an approval holds after it was signed. */
  ttlMs: number;
  ttlText: string;
  /** Empty: any time. */
  windows: ChangeWindow[];
  /** The role whose approval lets `--emergency` apply outside a window or a freeze. */
  emergencyRole?: string;
  place: SourcePlace;
}

export interface Freeze {
  reason: string;
  fromMs?: number;
  untilMs?: number;
  /** The changes it covers (all when absent). */
  match?: CompiledExpression;
  emergencyRole?: string;
  place: SourcePlace;
}

export interface ApprovalPolicy {
  rules: ApprovalRule[];
  freezes: Freeze[];
  /** From the first policy file that names one. */
  people?: People;
}

const dayNames = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];
const ruleFields = ['id', 'match', 'needs', 'ttl', 'windows', 'emergency'];
const defaultTtl = '72h';

/** Every approval rule and freeze of the policy files, and the people file they name. */
export async function loadApprovalPolicy(files: readonly string[], cwd: string): Promise<ApprovalPolicy> {
  const policy: ApprovalPolicy = { rules: [], freezes: [] };
  for (const file of files) {
    const one = await loadOne(file, cwd);
    for (const rule of one.rules) {
      const first = policy.rules.find((other) => other.id === rule.id);
      if (first)
        throw new TelformError(
          'policy_invalid',
          `approval rule ${rule.id} is already defined in ${first.place.file}:${first.place.line}`,
          { place: { source: rule.place } },
        );
      policy.rules.push(rule);
    }
    policy.freezes.push(...one.freezes);
    if (one.people && policy.people && one.people.file !== policy.people.file)
      throw new TelformError(
        'policy_invalid',
        `${file} names the people file ${one.people.file}, and another policy names ${policy.people.file}; keep one`,
      );
    if (one.people) policy.people ??= one.people;
  }
  if (policy.rules.some((rule) => rule.needs || rule.emergencyRole) && !policy.people)
    throw new TelformError(
      'policy_invalid',
      `${files.join(', ')}: approval rules that need people name the people file (people: people.yaml)`,
    );
  return policy;
}

async function loadOne(file: string, cwd: string): Promise<ApprovalPolicy> {
  // The file's shape (YAML, kind, top-level keys) is checked by the one reader of policy files.
  const { source, counter, root, placeOfNode: at } = await readPolicyDocument(file, cwd);
  const fail = (node: Node | null | undefined, message: string): never => {
    throw new TelformError('policy_invalid', message, { place: { source: at(node) } });
  };
  const policy: ApprovalPolicy = { rules: [], freezes: [] };
  const peopleNode = root.get('people', true) as Node | undefined;
  if (peopleNode !== undefined) {
    if (!isScalar(peopleNode) || typeof peopleNode.value !== 'string')
      fail(peopleNode, 'people names the people file, relative to the policy file');
    const relative = (peopleNode as { value: string }).value;
    const shown = path.join(path.dirname(file), relative);
    policy.people = await loadPeopleFile(path.resolve(cwd, path.dirname(file), relative), cwd, shown);
  }
  const rulesNode = root.get('approvals', true) as Node | undefined;
  if (rulesNode !== undefined) {
    if (!isSeq(rulesNode)) fail(rulesNode, 'approvals must be a list of rules');
    for (const item of (rulesNode as { items: unknown[] }).items)
      policy.rules.push(readRule(item as Node, { file, source, counter, at, fail }));
  }
  const freezeNode = root.get('freeze', true) as Node | undefined;
  if (freezeNode !== undefined) {
    for (const item of isSeq(freezeNode) ? (freezeNode.items as Node[]) : [freezeNode])
      policy.freezes.push(readFreeze(item, { file, source, counter, at, fail }));
  }
  return policy;
}

interface Reader {
  file: string;
  source: string;
  counter: LineCounter;
  at: (node: Node | null | undefined) => SourcePlace;
  fail: (node: Node | null | undefined, message: string) => never;
}

function readRule(node: Node, reader: Reader): ApprovalRule {
  const { fail } = reader;
  if (!isMap(node)) fail(node, 'each approval rule is a mapping with id, match and needs');
  const map = node as YAMLMap;
  const id = map.get('id');
  if (typeof id !== 'string' || !/^[a-z0-9]+(?:-[a-z0-9]+)*$/.test(id))
    fail(node, 'each approval rule needs an id in kebab-case, e.g. billable-campaigns');
  for (const pair of map.items) {
    const name = isScalar(pair.key) ? String(pair.key.value) : '';
    if (!ruleFields.includes(name))
      fail(pair.key as Node, `approval rule ${id}: unknown field ${name} (fields: ${ruleFields.join(', ')})`);
  }
  if (!map.has('match')) fail(node, `approval rule ${id}: match says which changes it covers (a CEL expression)`);
  const match = compilePolicyExpression(
    reader.file,
    reader.source,
    reader.counter,
    map.get('match', true) as Node,
    'match',
    id as string,
  );
  const needsText = map.get('needs');
  const needsMatch =
    typeof needsText === 'string' ? /^\s*(\d+)\s+of\s+([a-z0-9][a-z0-9._-]*)\s*$/.exec(needsText) : null;
  if (needsText !== 'none' && (!needsMatch || Number(needsMatch[1]) < 1))
    fail(
      (map.get('needs', true) as Node | undefined) ?? node,
      `approval rule ${id}: needs is "N of ROLE" (N at least 1), or none`,
    );
  const ttlText = String(map.get('ttl') ?? defaultTtl);
  const ttlMs = parseDuration(ttlText);
  if (ttlMs === undefined || ttlMs <= 0)
    fail(map.get('ttl', true) as Node, `approval rule ${id}: ttl is a duration such as 72h or 30m`);
  const rule: ApprovalRule = {
    id: id as string,
    match,
    needs: needsMatch ? { count: Number(needsMatch[1]), role: needsMatch[2] as string } : null,
    ttlMs: ttlMs as number,
    ttlText,
    windows: readWindows(map.get('windows', true) as Node | undefined, `approval rule ${id}`, reader),
    place: reader.at(node),
  };
  const emergency = readEmergency(map, `approval rule ${id}`, reader);
  if (emergency) rule.emergencyRole = emergency;
  return rule;
}

function readEmergency(map: YAMLMap, what: string, reader: Reader): string | undefined {
  const node = map.get('emergency', true) as Node | undefined;
  if (node === undefined) return undefined;
  const role = isMap(node) ? node.get('role') : undefined;
  if (typeof role !== 'string' || !/^[a-z0-9][a-z0-9._-]*$/.test(role))
    reader.fail(node, `${what}: emergency is { role: ROLE }, the role whose approval may apply it outside its window`);
  return role as string;
}

/** `- { days: [mon, tue], from: "09:00", to: "17:00", zone: America/Chicago }` */
function readWindows(node: Node | undefined, what: string, reader: Reader): ChangeWindow[] {
  const { fail } = reader;
  if (node === undefined) return [];
  if (!isSeq(node) || node.items.length === 0) fail(node, `${what}: windows is a list of { days, from, to, zone }`);
  return (node as { items: unknown[] }).items.map((item) => {
    const window = item as Node;
    if (!isMap(window)) fail(window, `${what}: a window is { days, from, to, zone }`);
    const map = window as YAMLMap;
    const days = map.get('days', true) as Node | undefined;
    const dayList = isSeq(days) ? days.items.map((day) => (isScalar(day) ? String(day.value).toLowerCase() : '')) : [];
    if (dayList.length === 0 || dayList.some((day) => !dayNames.includes(day)))
      fail(days ?? window, `${what}: days lists days of the week (${dayNames.join(', ')})`);
    const minutes = (field: 'from' | 'to'): number => {
      const text = map.get(field);
      const parsed = typeof text === 'string' ? /^([01]\d|2[0-4]):([0-5]\d)$/.exec(text) : null;
      if (!parsed || (parsed[1] === '24' && parsed[2] !== '00'))
        fail(
          (map.get(field, true) as Node | undefined) ?? window,
          `${what}: ${field} is a time of day such as "09:00" (quoted)`,
        );
      return Number(parsed![1]) * 60 + Number(parsed![2]);
    };
    const from = minutes('from');
    const to = minutes('to');
    if (to <= from)
      fail(window, `${what}: a window ends after it starts (from ${map.get('from')} to ${map.get('to')})`);
    const zone = map.get('zone');
    try {
      if (typeof zone !== 'string') throw new RangeError('absent');
      new Intl.DateTimeFormat('en-US', { timeZone: zone });
    } catch {
      fail(
        (map.get('zone', true) as Node | undefined) ?? window,
        `${what}: zone is an IANA time zone such as America/Chicago or UTC`,
      );
    }
    return {
      days: dayList.map((day) => dayNames.indexOf(day)),
      from,
      to,
      zone: zone as string,
      text: `${dayList.join(',')} ${String(map.get('from'))}-${String(map.get('to'))} ${String(zone)}`,
    };
  });
}

function readFreeze(node: Node, reader: Reader): Freeze {
  const { fail } = reader;
  if (!isMap(node)) fail(node, 'freeze is { reason, from, until, match, emergency }');
  const map = node as YAMLMap;
  for (const pair of map.items) {
    const name = isScalar(pair.key) ? String(pair.key.value) : '';
    if (!['reason', 'from', 'until', 'match', 'emergency'].includes(name))
      fail(pair.key as Node, `freeze: unknown field ${name} (fields: reason, from, until, match, emergency)`);
  }
  const reason = map.get('reason');
  if (typeof reason !== 'string' || reason.trim() === '') fail(node, 'freeze: reason says why changes wait');
  const instant = (field: 'from' | 'until'): number | undefined => {
    const value = map.get(field);
    if (value === undefined) return undefined;
    const ms =
      typeof value === 'string' && /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d)?(Z|[+-]\d\d:\d\d)$/.test(value)
        ? Date.parse(value)
        : NaN;
    if (Number.isNaN(ms))
      fail(
        map.get(field, true) as Node,
        `freeze: ${field} is an instant with its offset, such as 2026-12-20T00:00:00Z`,
      );
    return ms;
  };
  const freeze: Freeze = { reason: reason as string, place: reader.at(node) };
  const from = instant('from');
  const until = instant('until');
  if (from !== undefined) freeze.fromMs = from;
  if (until !== undefined) freeze.untilMs = until;
  if (map.has('match'))
    freeze.match = compilePolicyExpression(
      reader.file,
      reader.source,
      reader.counter,
      map.get('match', true) as Node,
      'match',
      'freeze',
    );
  const emergency = readEmergency(map, 'freeze', reader);
  if (emergency) freeze.emergencyRole = emergency;
  return freeze;
}

/** Whether `ms` falls inside `window`, read on the wall clock of its zone. */
export function insideWindow(window: ChangeWindow, ms: number): boolean {
  const { day, minutes } = wallClock(window.zone, ms);
  return window.days.includes(day) && minutes >= window.from && minutes < window.to;
}

/** `Sat 10:04 America/Chicago`: the wall clock of `zone` at `ms`. */
export function wallClockText(zone: string, ms: number): string {
  const { day, minutes } = wallClock(zone, ms);
  const hh = String(Math.floor(minutes / 60)).padStart(2, '0');
  const mm = String(minutes % 60).padStart(2, '0');
  return `${dayNames[day] ?? '?'} ${hh}:${mm} ${zone}`;
}

function wallClock(zone: string, ms: number): { day: number; minutes: number } {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    weekday: 'short',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(new Date(ms));
  const part = (type: string) => parts.find((item) => item.type === type)?.value ?? '';
  return {
    day: dayNames.indexOf(part('weekday').slice(0, 3).toLowerCase()),
    minutes: Number(part('hour')) * 60 + Number(part('minute')),
  };
}
