import { ApiError, type JsonObject } from './http.js';

/**
 * Readers for body parameters: each checks the JSON type and answers 400 naming the field when it
 * is wrong, so a wrong type is never a 500. Missing-parameter status differs by area (trunking
 * creates answer 422, the API reference Errors rules 4–6; others 400), so "required" takes the status.
 */

export function isPresent(body: JsonObject, field: string): boolean {
  return body[field] !== undefined && body[field] !== null;
}

export function optionalString(body: JsonObject, field: string): string | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new ApiError(400, `${field} must be a string`);
  return value;
}

export function requiredString(body: JsonObject, field: string, missingStatus = 400): string {
  const value = optionalString(body, field);
  if (value === undefined || value === '') throw new ApiError(missingStatus, `${field} is required`);
  return value;
}

/**
 * Boolean fields that the official Node SDK documents or types as strings, so that its users send
 * `"true"` or `"false"`: brand `secondary_vetting` (documented as a string; its samples pass `"true"`)
 * and the application's `default_app`, `enabled` and `log_incoming_messages` (typed as strings in its
 * application records, which a read-modify-write sends back). These two strings are accepted for them;
 * other booleans take JSON booleans only.
 */
export const textualBooleanFields: ReadonlySet<string> = new Set([
  'secondary_vetting',
  'default_app',
  'enabled',
  'log_incoming_messages',
]);

/** The value of `field`, with `"true"`/`"false"` read as booleans where `textualBooleanFields` allows it. */
export function booleanInput(body: JsonObject, field: string): unknown {
  const value = body[field];
  if (textualBooleanFields.has(field) && (value === 'true' || value === 'false')) return value === 'true';
  return value;
}

export function optionalBoolean(body: JsonObject, field: string): boolean | undefined {
  const value = booleanInput(body, field);
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'boolean') throw new ApiError(400, `${field} must be a boolean`);
  return value;
}

export function optionalInteger(body: JsonObject, field: string): number | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value)) throw new ApiError(400, `${field} must be an integer`);
  return value;
}

export function optionalArray(body: JsonObject, field: string): unknown[] | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) throw new ApiError(400, `${field} must be an array`);
  return value;
}

export function optionalStringArray(body: JsonObject, field: string): string[] | undefined {
  const value = optionalArray(body, field);
  if (value === undefined) return undefined;
  if (!value.every((item) => typeof item === 'string')) throw new ApiError(400, `${field} must be an array of strings`);
  return value as string[];
}

/** Reads a boolean query filter (`true`/`false`, any case); anything else is a 400. */
export function queryBoolean(query: URLSearchParams, name: string): boolean | undefined {
  const raw = query.get(name);
  if (raw === null || raw === '') return undefined;
  const lowered = raw.toLowerCase();
  if (lowered === 'true') return true;
  if (lowered === 'false') return false;
  throw new ApiError(400, `${name} must be true or false`);
}

/** Reads an enumerated query filter; a value outside `allowed` is a 400. */
export function queryEnum<T extends string>(
  query: URLSearchParams,
  name: string,
  allowed: readonly T[],
): T | undefined {
  const raw = query.get(name);
  if (raw === null || raw === '') return undefined;
  if (!(allowed as readonly string[]).includes(raw))
    throw new ApiError(400, `${name} must be one of ${allowed.join(', ')}`);
  return raw as T;
}
