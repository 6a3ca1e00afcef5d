import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/**
 * HTTP plumbing shared by every route of the emulator: the error type, reply builders and the
 * request body reader. The emulator shares no code with the reconciler.
 */

export type JsonObject = { [key: string]: unknown };

/** The largest request body accepted; bigger ones are refused with 413 before parsing. */
export const maxBodyBytes = 1024 * 1024;

export interface Reply {
  status: number;
  /** Omitted for 204. */
  body?: JsonObject;
  headers?: Record<string, string>;
}

/**
 * An error answered to the client as `{ api_id, error }` with `status` (the API reference, Errors, rule 1;
 * production's documentation uses the same shape for trunking and 10DLC).
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export function newApiId(): string {
  return randomUUID();
}

/** A JSON reply; `api_id` comes first unless the body already carries one. */
export function json(status: number, body: JsonObject = {}): Reply {
  return { status, body: 'api_id' in body ? body : { api_id: newApiId(), ...body } };
}

export function noContent(): Reply {
  return { status: 204 };
}

export function errorBody(message: string): JsonObject {
  return { api_id: newApiId(), error: message };
}

/**
 * Reads the request body (at most `maxBodyBytes`) and parses it as a JSON object. An empty body
 * is `{}`. Malformed JSON or a non-object is a 400, never a 500; an oversized body a 413.
 */
export async function readJsonBody(request: IncomingMessage): Promise<JsonObject> {
  const declared = Number(request.headers['content-length'] ?? '0');
  // No Content-Length and no Transfer-Encoding means no body (RFC 9112 section 6.3): skip the stream
  // machinery, which costs more than the rest of a GET.
  if (declared === 0 && request.headers['transfer-encoding'] === undefined) return {};
  if (declared > maxBodyBytes) {
    request.resume();
    throw new ApiError(413, `request body is larger than ${maxBodyBytes} bytes`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of request as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > maxBodyBytes) {
        request.resume();
        throw new ApiError(413, `request body is larger than ${maxBodyBytes} bytes`);
      }
      chunks.push(chunk);
    }
  } catch (error) {
    if (error instanceof ApiError) throw error;
    // The client went away mid-body (killed, timed out): nobody is left to answer; not a bug here.
    throw new ApiError(499, 'the client closed the connection before the whole body arrived');
  }
  const text = Buffer.concat(chunks).toString('utf8').trim();
  if (text === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ApiError(400, 'request body is not valid JSON');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new ApiError(400, 'request body must be a JSON object');
  }
  return parsed as JsonObject;
}
