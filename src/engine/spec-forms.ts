// The comparable forms of the specs a plan diffs the live objects with: each manifest resource's
// and the spec the state recorded at its last apply. They are known before the account is read, so
// `preparePlan` makes them while the lists are on their way, and the plan made after the last page
// looks them up. One run's: a spec is taken as it is when its form is made, and nothing changes a
// desired or recorded spec between then and the plan.
import { comparable, type DiffRules } from './diff.js';
import type { PlannerKinds } from './model.js';

interface Made {
  form: Readonly<Record<string, unknown>>;
  rules: DiffRules;
}

/** Objects worked out between two yields: a few milliseconds, so a response that lands meanwhile waits no longer. */
const slice = 100;

export class SpecForms {
  private readonly bySpec = new Map<Readonly<Record<string, unknown>>, Made>();

  /** `comparable(spec, rules)`, made once (never to be changed: it is shared). */
  of(spec: Readonly<Record<string, unknown>>, rules: DiffRules): Readonly<Record<string, unknown>> {
    const made = this.bySpec.get(spec);
    if (made && made.rules.setFields === rules.setFields && made.rules.secretFields === rules.secretFields) return made.form;
    const form = comparable(spec, rules);
    this.bySpec.set(spec, { form, rules });
    return form;
  }

  /** Makes the forms of `specs` (each with its kind's name), a slice at a time, letting responses run between slices. */
  async prepare(specs: ReadonlyArray<{ kind: string; spec: Readonly<Record<string, unknown>> }>, kinds: PlannerKinds): Promise<void> {
    for (let start = 0; start < specs.length; start += slice) {
      await new Promise((resolve) => setImmediate(resolve));
      for (const { kind, spec } of specs.slice(start, start + slice)) {
        const rules = kinds.get(kind);
        if (rules) this.of(spec, rules);
      }
    }
  }
}
