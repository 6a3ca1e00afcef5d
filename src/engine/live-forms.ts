// What the planner derives from one live object alone: its fingerprint (a saved plan's basis) and its
// spec's comparable form (the diff's live side, before references and unknown fields are resolved).
// Computed once per object: `readNeeded` works them out as each list lands, in small slices between
// the other responses, so the plan made after the last page mostly looks them up.
import type { LiveObject } from '../resources/live-side.js';
import { comparable, type DiffRules } from './diff.js';
import { fingerprintLive } from './fingerprint.js';

interface Forms {
  fingerprint?: string;
  form?: Readonly<Record<string, unknown>>;
  /** The rules `form` was made with: a kind given other rules makes it again. */
  setFields?: DiffRules['setFields'];
  secretFields?: DiffRules['secretFields'];
}

// By object: a list read again makes new objects, and nothing changes a live object once read.
const byObject = new WeakMap<LiveObject, Forms>();

function formsOf(live: LiveObject): Forms {
  let forms = byObject.get(live);
  if (!forms) byObject.set(live, (forms = {}));
  return forms;
}

/** `fingerprintLive(live)`, made once. */
export function liveFingerprint(live: LiveObject): string {
  const forms = formsOf(live);
  return (forms.fingerprint ??= fingerprintLive(live));
}

/** `comparable(live.spec, rules)`, made once (never to be changed: it is shared). */
export function liveComparable(live: LiveObject, rules: DiffRules): Readonly<Record<string, unknown>> {
  const forms = formsOf(live);
  if (forms.form && forms.setFields === rules.setFields && forms.secretFields === rules.secretFields) return forms.form;
  forms.form = comparable(live.spec, rules);
  forms.setFields = rules.setFields;
  forms.secretFields = rules.secretFields;
  return forms.form;
}

/** Objects worked out between two yields: a few milliseconds, so a response that lands meanwhile waits no longer. */
const slice = 100;

/** Makes the forms of a list's objects, a slice at a time, letting other work (responses) run between slices. */
export async function prepareLiveForms(objects: readonly LiveObject[], rules: DiffRules): Promise<void> {
  for (let start = 0; start < objects.length; start += slice) {
    await new Promise((resolve) => setImmediate(resolve));
    for (const live of objects.slice(start, start + slice)) {
      liveFingerprint(live);
      liveComparable(live, rules);
    }
  }
}
