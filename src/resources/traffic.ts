// What traffic a kind's objects carry and how a change breaks it, declared by the kind (its `traffic`)
// and read by the plan's blast radius (engine/blast-radius.ts), which names no kind and no field.
//
// The vocabulary is the blast radius's: calls and messages are counted per object that carries them
// (each such object counts once in `numbers`), and objects that let a caller in (an outbound trunk,
// an application) are counted by name when they stop letting in what they let in before.

/** A predicate on a spec (defaults filled; references as `{ ref }` or live ids). */
type SpecTest = (spec: Readonly<Record<string, unknown>>) => boolean;

/**
 * How an object that calls reach answers them (an inbound trunk): while `when` holds of its spec,
 * and, when `through` lists reference fields, while one of the objects they name exists and answers
 * in turn. A kind that calls reach without `answers` answers while it exists.
 */
interface Answering {
  readonly when: SpecTest;
  /** Reference fields, any one of which will do (primary and fallback). A break is put on the first's change. */
  readonly through: readonly string[];
}

/** Where a caller that authenticates is counted when it stops being let in. */
interface AuthenticationCount {
  /** The blast radius's list it is named in. */
  readonly in: 'trunks' | 'applications';
  /** Its name there, from its live id; left out: its own address (`Kind/name`). */
  readonly as?: (id: string) => string;
}

/**
 * A caller let in by the objects its reference fields name (an outbound trunk by its IP ACL and
 * credential). It loses authentication when one of them is deleted or swapped, or no longer admits
 * what it admitted (see `Admission`).
 */
export interface Authentication {
  /** Reference fields naming objects whose kind declares `admits`. */
  readonly by: readonly string[];
  /** Whether the object authenticates at all (an inbound trunk does not), before and after; left out: always. */
  readonly when?: SpecTest;
  readonly counted: AuthenticationCount;
  /**
   * Deleting the object itself takes the authentication away (an application's binding); otherwise
   * a deleted object has nothing left to let in (a trunk).
   */
  readonly removalBreaks: boolean;
}

/**
 * What an object named by an `Authentication` admits. `members`: a set field (one of the kind's
 * `setFields`) whose removed members stop admitting what they admitted (an IP ACL's addresses).
 * `credential`: the fields (besides the kind's secrets, any change of which counts) whose change makes
 * the caller's stored copy fail (a username).
 */
export type Admission = { readonly members: string } | { readonly credential: readonly string[] };

/** The traffic a kind takes part in; every member optional. Reference fields are the kind's `references`. */
export interface KindTraffic {
  /**
   * The reference field calls to the object go through: they are answered while the object it names
   * answers (see `Answering`). A literal id naming no live object of that kind (an application)
   * counts as answering while the field is set.
   */
  readonly calls?: string;
  /** The reference field messages are sent under: they stop when it is cleared, or what it names is deleted or replaced. */
  readonly messages?: string;
  /** As what calls reach. */
  readonly answers?: Answering;
  /** As a caller that must be let in. */
  readonly authenticates?: Authentication;
  /** As what lets a caller in. */
  readonly admits?: Admission;
}

/**
 * The ways a traffic declaration can be wrong against its kind (fields not in `references`, an
 * `admits` set field not in `setFields`), one sentence each; `kinds` looks up the kinds references name.
 */
export function trafficProblems(
  own: {
    name: string;
    references: Readonly<Record<string, string>>;
    setFields: Readonly<Record<string, unknown>>;
    traffic?: KindTraffic;
  },
  kindNamed: (name: string) => { traffic?: KindTraffic } | undefined,
): string[] {
  const traffic = own.traffic;
  if (!traffic) return [];
  const problems: string[] = [];
  const reference = (role: string, field: string): void => {
    if (!(field in own.references))
      problems.push(`kind ${own.name}: traffic ${role} field ${field} is not one of its references`);
  };
  if (traffic.calls !== undefined) reference('calls', traffic.calls);
  if (traffic.messages !== undefined) reference('messages', traffic.messages);
  for (const field of traffic.answers?.through ?? []) reference('answers', field);
  for (const field of traffic.authenticates?.by ?? []) {
    reference('authenticates', field);
    const target = own.references[field];
    if (target !== undefined && !kindNamed(target)?.traffic?.admits)
      problems.push(`kind ${own.name}: ${field} authenticates by ${target}, which declares no traffic.admits`);
  }
  const admits = traffic.admits;
  if (admits && 'members' in admits && !(admits.members in own.setFields))
    problems.push(`kind ${own.name}: traffic admits members of ${admits.members}, which is not one of its setFields`);
  return problems;
}
