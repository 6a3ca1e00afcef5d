import { Command, Option } from 'commander';
import { forgetResources, moveResource, readState, readStateEntry, unprotectResource } from '../run/state-edits.js';
import { stateMigrateCommand } from './state-migrate.js';
import { stateEndpointCommand } from './state-endpoint.js';
import { stateClaimCommand, stateReleaseCommand } from './state-ownership.js';
import { renderMoved, renderUnprotected, stateListSummary } from '../render/state.js';
import { formatChoices, rendererFor, type Format } from '../render/index.js';
import { processIo } from './io.js';
import { cliContext } from './session.js';
import { scopeInAccount } from '../run/state-hand-over.js';
import type { GlobalOptions } from '../run/context.js';

/**
 * `telform state`: inspect and edit the ownership ledger without touching the account. `rm`
 * forgets resources (they stay in the account, unmanaged); `mv` renames a manifest resource
 * (`metadata.name`) so the next plan matches it by id instead of recreating it. Both back the
 * ledger up first and take its lock.
 */
export function stateCommand(): Command {
  const state = new Command('state')
    .description('Inspect and edit the state (the ownership ledger); never writes to the account.')
    .addHelpText(
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
    .addOption(
      new Option(
        '--format <format>',
        "output format (json: the account, serial, lineage and each resource's address and id)",
      )
        .choices(formatChoices('stateList'))
        .default('text'),
    )
    .action(async (options: { format: Format }, cmd: Command) => {
      const io = processIo();
      const ledger = await readState(globalsOf(cmd), { io });
      io.stdout(rendererFor(options.format, 'stateList')(ledger));
      if (options.format === 'text') {
        io.stderr(stateListSummary(ledger));
        // The scope as the account's marker says it now (after another state's take-over), where the account can be read.
        const now = await scopeInAccount(ledger, globalsOf(cmd), cliContext(io));
        if (now) io.stderr(now);
      }
    });
  state
    .command('show')
    .description(
      'Show one managed resource: id, last applied spec, where each secret came from (never the secret or its fingerprint).',
    )
    .argument('<address>', 'Kind/name')
    .action(async (address: string, _options: unknown, cmd: Command) => {
      const io = processIo();
      io.stdout(rendererFor('json', 'stateEntry')(address, await readStateEntry(address, globalsOf(cmd), { io })));
    });
  state
    .command('rm')
    .description('Forget resources: they stay in the account and become unmanaged.')
    .argument('<address...>', 'Kind/name (one or more)')
    .action(async (addresses: string[], _options: unknown, cmd: Command) => {
      const io = processIo();
      for (const address of await forgetResources(addresses, globalsOf(cmd), { io })) io.stdout(`forgot ${address}\n`);
    });
  state
    .command('unprotect')
    .description(
      'Lift the protection an apply recorded (metadata.protect: true), so the resource can be deleted or replaced.',
    )
    .argument('<address>', 'Kind/name')
    .action(async (address: string, _options: unknown, cmd: Command) => {
      const io = processIo();
      io.stdout(renderUnprotected(address, await unprotectResource(address, globalsOf(cmd), { io })));
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
leaves that field out plans no rename: the next plan is empty. Secrets are not sent again either:
their fingerprints stay valid under the new address. To rename the live object too, set the field
in the manifest (e.g. spec.name: new-name) and apply.`,
    )
    .action(async (from: string, to: string, _options: unknown, cmd: Command) => {
      const io = processIo();
      const moved = renderMoved(await moveResource(from, to, globalsOf(cmd), { io }));
      io.stdout(moved.stdout);
      if (moved.note !== undefined) io.stderr(moved.note);
    });
  state.addCommand(stateMigrateCommand());
  state.addCommand(stateEndpointCommand());
  state.addCommand(stateClaimCommand());
  state.addCommand(stateReleaseCommand());
  return state;
}

function globalsOf(cmd: Command): GlobalOptions {
  return cmd.optsWithGlobals<GlobalOptions>();
}
