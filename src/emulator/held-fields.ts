// Reading a held object's fields (held.ts, held-voice.ts): absent stays absent, a present value has its type.
import { ApiError, type JsonObject } from './http.js';
import { freshId } from './records.js';

/** Reads fields of a held object: absent (or null) stays absent; a present value must have its type. */
export class Fields {
  private readonly known = new Set<string>();

  constructor(private readonly body: JsonObject) {}

  text(field: string): string | undefined {
    this.known.add(field);
    const value = this.body[field];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'string') throw new ApiError(400, `${field} must be a string`);
    return value;
  }

  flag(field: string): boolean | undefined {
    this.known.add(field);
    const value = this.body[field];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'boolean') throw new ApiError(400, `${field} must be true or false`);
    return value;
  }

  /** An object whose members are all of one type (strings for addresses and contacts, booleans for attributes). */
  members<T extends 'string' | 'boolean'>(
    field: string,
    type: T,
  ): Record<string, T extends 'string' ? string : boolean> | undefined {
    this.known.add(field);
    const value = this.body[field];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'object' || Array.isArray(value)) throw new ApiError(400, `${field} must be an object`);
    for (const [member, item] of Object.entries(value as JsonObject)) {
      if (typeof item !== type) throw new ApiError(400, `${field}.${member} must be a ${type}`);
    }
    return { ...(value as Record<string, T extends 'string' ? string : boolean>) };
  }

  any(field: string): unknown {
    this.known.add(field);
    return this.body[field];
  }

  /** A field the reader never asked for is most likely a typo in the seed: refused rather than dropped. */
  checkNoOthers(what: string): void {
    const unknown = Object.keys(this.body).filter((field) => !this.known.has(field));
    if (unknown.length > 0) throw new ApiError(400, `unknown field ${unknown.join(', ')} for a held ${what}`);
  }
}

export function heldId(
  collection: ReadonlyMap<string, unknown>,
  given: string | undefined,
  pattern: RegExp,
  form: string,
  make: () => string,
): string {
  if (given === undefined) return freshId(collection, make);
  if (!pattern.test(given)) throw new ApiError(400, `${form}`);
  if (collection.has(given)) throw new ApiError(400, `${given} is already an object of this account`);
  return given;
}
