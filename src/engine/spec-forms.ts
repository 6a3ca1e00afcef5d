// What a plan derives from one spec or one live object alone, made ahead of the plan: the comparable
// forms of the manifests' specs and of the specs the state recorded (known before the account is
// read), of each live object's spec and its fingerprint (as its list lands). `preparePlan` makes them
// in small slices while the lists are on their way, so the plan made after the last page mostly
// looks them up. One run's: nothing changes a desired, recorded or live spec between then and the plan.
import type { LiveObject } from '../resources/live-side.js';
import { comparable, type DiffRules } from './diff.js';
import { fingerprintLive } from './fingerprint.js';
import type { PlannerKinds } from './model.js';
import { Pacer } from '../util/pace.js';

export class SpecForms {
  /** By the rules they were made with (a kind), then by spec. */
  private readonly byRules = new Map<
    DiffRules,
    Map<Readonly<Record<string, unknown>>, Readonly<Record<string, unknown>>>
  >();
  private readonly fingerprints = new Map<LiveObject, string>();

  /** `comparable(spec, rules)`, made once for these rules (never to be changed: it is shared). */
  of(spec: Readonly<Record<string, unknown>>, rules: DiffRules): Readonly<Record<string, unknown>> {
    let bySpec = this.byRules.get(rules);
    if (!bySpec) this.byRules.set(rules, (bySpec = new Map()));
    let form = bySpec.get(spec);
    if (form === undefined) bySpec.set(spec, (form = comparable(spec, rules)));
    return form;
  }

  /** `fingerprintLive(live)`, made once. */
  fingerprint(live: LiveObject): string {
    let fingerprint = this.fingerprints.get(live);
    if (fingerprint === undefined) this.fingerprints.set(live, (fingerprint = fingerprintLive(live)));
    return fingerprint;
  }

  /** Makes the forms of `specs` (each with its kind's name), a slice at a time, letting responses run between slices. */
  async prepare(
    specs: ReadonlyArray<{ kind: string; spec: Readonly<Record<string, unknown>> }>,
    kinds: PlannerKinds,
  ): Promise<void> {
    const pacer = new Pacer();
    for (const { kind, spec } of specs) {
      if (pacer.due()) await pacer.breathe();
      const rules = kinds.get(kind);
      if (rules) this.of(spec, rules);
    }
  }

  /** Makes the fingerprints and spec forms of a list's objects, a slice at a time. */
  async prepareLive(objects: readonly LiveObject[], rules: DiffRules): Promise<void> {
    const pacer = new Pacer();
    for (const live of objects) {
      if (pacer.due()) await pacer.breathe();
      this.fingerprint(live);
      this.of(live.spec, rules);
    }
  }
}
