// The registry status of one object, read again through its kind: what serve does when a registry
// callback names an object (the callback is only a hint; the status is the API's answer).
import { catalog } from '../resources/index.js';
import { liveContext, type LiveObject } from '../resources/live-side.js';
import type { Session } from './context.js';

interface RegistryReading {
  /** The registration status in capitals, or the kind's word for an object with no registration. */
  status: string;
  registry?: NonNullable<LiveObject['registry']>;
}

/** The object's status, or undefined when the account no longer has it. */
export async function readRegistryStatus(
  session: Session,
  kind: string,
  id: string,
): Promise<RegistryReading | undefined> {
  const registered = catalog.get(kind);
  if (!registered?.registry) throw new Error(`no kind ${kind} with a registry status`);
  const object = await registered.live.read(liveContext(session.client), id);
  if (!object) return undefined;
  const registry = object.registry;
  // An object with no registration (a number unlinked, or never linked) has the kind's word for it.
  return registry
    ? { status: registry.registration_status.toUpperCase(), registry }
    : { status: registered.registry.unregistered };
}
