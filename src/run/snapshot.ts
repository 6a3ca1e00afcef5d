// `telform snapshot`: a replica of the account in a file the emulator loads (`telform emulator --data
// FILE`), for rehearsals (`plan --rehearse`) and for `telform test`. It reads every collection whole and
// writes the objects as the API returned them (snapshot-format.ts): legacy values and unreturned fields
// kept, no secret (the API never returns one). It sends no write and needs no state (one is read, when
// there, for the brands deleted since: their profiles cannot register another).
import { readAccountRecords, type AccountReading } from '../resources/account-records.js';
import type { GlobalOptions, RunContext } from './context.js';
import { snapshotDocument } from './snapshot-format.js';
import { brandsMadeInState } from './brands-made.js';
import { catalog } from '../resources/index.js';

export interface Snapshot {
  /** The document to write (JSON). */
  document: Record<string, unknown>;
  account: string;
  /** Objects read, by collection. */
  counts: Record<string, number>;
  /** Lists the account's products do not include, with the API's answer. */
  skipped: AccountReading['skipped'];
}

export interface SnapshotInput {
  globals: GlobalOptions;
  /** When the snapshot is taken (an ISO time); the caller's clock. */
  now: string;
}

export async function takeSnapshot(input: SnapshotInput, context: RunContext): Promise<Snapshot> {
  const session = await context.connect(input.globals, context.io);
  try {
    const reading = await readAccountRecords(session.client);
    const counts = Object.fromEntries(
      Object.entries(reading.records).map(([name, records]) => [name, records?.length ?? 0]),
    );
    return {
      document: snapshotDocument(
        reading,
        { takenAt: input.now, endpoint: session.endpointLabel, account: session.account },
        // Brands deleted since are known only to the state (when there is one): their profiles stay used.
        catalog,
        await brandsMadeInState(input.globals, context.io),
      ),
      account: session.account,
      counts,
      skipped: reading.skipped,
    };
  } finally {
    await session.close();
  }
}

/** The snapshot as the file holds it: JSON, one object, a final newline. */
export function snapshotText(snapshot: Snapshot): string {
  return `${JSON.stringify(snapshot.document, null, 2)}\n`;
}

/** Whether a file's text is a snapshot (its header's first key says so): `snapshot --out` replaces only those. */
export function isSnapshotText(text: string): boolean {
  return /^\s*\{\s*"format"\s*:\s*"telform-snapshot"/.test(text);
}
