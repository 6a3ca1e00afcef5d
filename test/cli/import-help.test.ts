import { describe, expect, it } from 'vitest';
import { importCommand } from '../../src/cli/import.js';

// `import --help` must be true: recording objects in an account nobody owns creates the ownership marker.
describe('import --help', () => {
  it('says that an import may create the ownership marker, and does not claim to change nothing', () => {
    const command = importCommand();
    let help = '';
    command.configureOutput({ writeOut: (text) => (help += text) });
    command.outputHelp();
    // Commander wraps the description to the terminal's width: compare the words.
    help = help.replace(/\s+/g, ' ');
    expect(help).not.toContain('changes nothing in the account');
    expect(help).toContain(
      "changes none of the account's objects (in an account nobody owns yet, it first claims it for this state with telform's ownership marker)",
    );
    expect(help).toContain('import creates the ownership marker (a SIP IP ACL named telform-owner:<lineage>) first');
  });
});
