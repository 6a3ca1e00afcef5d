import { Command } from 'commander';
import type { LedgerEntry } from '../state/ledger.js';
import type { LedgerStore } from '../state/ledger-store.js';
import { openState } from '../run/state-location.js';
import { stateMigrateCommand } from './state-migrate.js';
import { stateEndpointCommand } from './state-endpoint.js';
import { stateClaimCommand, stateReleaseCommand } from './state-ownership.js';
import { TelformError } from '../util/errors.js';
import { renderStateEntry, renderStateList } from '../render/state.js';
import { catalog } from '../resources/index.js';
import { metadataNamePattern, metadataNameRule } from '../resources/fields.js';
import { processIo } from './io.js';
import type { GlobalOptions } from '../run/context.js';

/**
 * `telform state`: inspect and edit the ownership ledger without touching the account. `rm`
 * forgets resources (they stay in the account, unmanaged); `mv` renames a manifest resource
 * (`metadata.name`) so the next plan matches it by id instead of recreating it. Both back the
 * ledger up first and take its lock.
 */
export function stateCommand(): Command {
  const state = new Command('state').description('Inspect and edit the state (the ownership ledger); never touches the account.').addHelpText(
    'after',
    `
Examples:
  $ telform state list
  $ telform state show Trunk/pbx-out
  $ telform state mv Trunk/pbx-out Trunk/office-outbound    # after renaming metadata.name
  $ telform state rm SipCredential/old-phone                  # stop managing it; it stays in the account
  $ telform state unprotect Trunk/pbx-out                     # let a removed, protected resource be deleted
  $ telform state endpoint http://127.0.0.1:4010             # the same account, served at another address
  $ telform state claim                                       # this state owns the account; others only read it`,
  );
  state
    .command('list')
    .description('List managed resources: address and live id.')
    .action(async (_options: unknown, cmd: Command) => {
      const io = processIo();
      const store = await openLedger(cmd, false);
      try {
        const { table, summary } = renderStateList(store.ledger);
        io.stdout(table);
        io.stderr(summary);
      } finally {
        await store.close();
      }
    });
  state
    .command('show')
    .description('Show one managed resource: id, last applied spec, where each secret came from (never the secret or its fingerprint).')
    .argument('<address>', 'Kind/name')
    .action(async (address: string, _options: unknown, cmd: Command) => {
      const io = processIo();
      const store = await openLedger(cmd, false);
      try {
        io.stdout(renderStateEntry(address, requireEntry(store, address)));
      } finally {
        await store.close();
      }
    });
  state
    .command('rm')
    .description('Forget resources: they stay in the account and become unmanaged.')
    .argument('<address...>', 'Kind/name (one or more)')
    .action(async (addresses: string[], _options: unknown, cmd: Command) => {
      const io = processIo();
      const store = await openLedger(cmd, true);
      try {
        for (const address of addresses) requireEntry(store, address);
        io.stderr(`backed up the state to ${await store.backup()}`);
        for (const address of addresses) {
          await store.recordResult(address, null);
          io.stdout(`forgot ${address}\n`);
        }
      } finally {
        await store.close();
      }
    });
  state
    .command('unprotect')
    .description('Lift the protection an apply recorded (metadata.protect: true), so the resource can be deleted or replaced.')
    .argument('<address>', 'Kind/name')
    .action(async (address: string, _options: unknown, cmd: Command) => {
      const io = processIo();
      const store = await openLedger(cmd, true);
      try {
        const entry = requireEntry(store, address);
        if (entry.protect !== true) {
          io.stdout(`${address} is not protected in the state\n`);
          return;
        }
        io.stderr(`backed up the state to ${await store.backup()}`);
        const { protect: _lifted, ...unprotected } = entry;
        await store.recordResult(address, { ...unprotected, updated_at: store.timestamp() });
        io.stdout(`${address} is no longer protected in the state (a manifest that still says metadata.protect: true protects it again)\n`);
      } finally {
        await store.close();
      }
    });
  state
    .command('mv')
    .description('Rename a managed resource (its metadata.name) in the state; the account is left exactly as it is.')
    .argument('<from>', 'Kind/old-name')
    .argument('<to>', 'Kind/new-name (new-name must be a valid metadata.name)')
    .addHelpText(
      'after',
      `
The live object keeps its name. For kinds whose API name (name, username, brand_alias,
campaign_alias, …) defaults to metadata.name, the state records the live name, so a manifest that
leaves that field out plans no rename: the next plan is empty. To rename the live object too, set
the field in the manifest (e.g. spec.name: new-name) and apply.`,
    )
    .action(async (from: string, to: string, _options: unknown, cmd: Command) => {
      const io = processIo();
      const store = await openLedger(cmd, true);
      try {
        const entry = requireEntry(store, from);
        const [kind, name] = splitAddress(to);
        if (kind !== entry.kind) throw new TelformError('state_mv_kind', `${from} is a ${entry.kind}; it cannot become a ${kind}`);
        if (!metadataNamePattern.test(name)) throw new TelformError('state_mv_name', `"${name}" is not a valid metadata.name: it ${metadataNameRule}`);
        if (store.ledger.resources[to]) throw new TelformError('state_mv_exists', `${to} is already in the state`);
        io.stderr(`backed up the state to ${await store.backup()}`);
        const nameField = catalog.get(kind)?.nameField;
        const applied = nameField === undefined ? undefined : entry.applied_spec[nameField];
        const liveName = entry.live_name ?? (typeof applied === 'string' ? applied : undefined);
        const moved: LedgerEntry = { ...entry, name, ...(liveName === undefined ? {} : { live_name: liveName }), updated_at: store.timestamp() };
        await store.recordResult(from, null);
        await store.recordResult(to, moved);
        io.stdout(`moved ${from} to ${to}\n`);
        if (liveName !== undefined && nameField !== undefined && liveName !== name) {
          io.stderr(
            `the account is unchanged: the live object keeps its ${nameField} "${liveName}", which the state now records for ${to} while its manifest leaves ${nameField} out; to rename the live object too, set ${nameField}: ${name} in its spec and apply`,
          );
        }
      } finally {
        await store.close();
      }
    });
  state.addCommand(stateMigrateCommand());
  state.addCommand(stateEndpointCommand());
  state.addCommand(stateClaimCommand());
  state.addCommand(stateReleaseCommand());
  return state;
}

async function openLedger(cmd: Command, lock: boolean): Promise<LedgerStore> {
  const globals = cmd.optsWithGlobals<GlobalOptions>();
  return openState(globals, process.env, { lock });
}

function requireEntry(store: LedgerStore, address: string): LedgerEntry {
  splitAddress(address);
  const entry = store.ledger.resources[address];
  if (!entry) throw new TelformError('state_unknown', `${address} is not in the state ${store.file} (see telform state list)`);
  return entry;
}

function splitAddress(address: string): [string, string] {
  const match = /^([A-Za-z]+)\/(.+)$/.exec(address);
  if (!match) throw new TelformError('bad_address', `"${address}" is not an address like Kind/name`);
  return [match[1] as string, match[2] as string];
}
