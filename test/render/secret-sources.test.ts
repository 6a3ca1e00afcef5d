import { describe, expect, it } from 'vitest';
import { renderJson } from '../../src/render/json.js';
import { renderMarkdown } from '../../src/render/markdown.js';
import { renderText } from '../../src/render/text.js';
import { change, plan } from '../support/plan.js';

/** A reviewer approves where each secret comes from: every format names the source, never a value. */
const sources = plan([
  change({
    address: 'SipCredential/from-env',
    action: 'create',
    after: { username: 'from-env', password: '(sensitive, from env PBX_PW)' },
    secret_sources: { password: { fromEnv: 'PBX_PW' } },
  }),
  change({
    address: 'TrunkCredential/from-file',
    action: 'create',
    after: { username: 'fromfile01', password: '(sensitive, from file secrets/pbx.txt)' },
    secret_sources: { password: { fromFile: 'secrets/pbx.txt' } },
  }),
  change({
    address: 'SipCredential/literal',
    action: 'create',
    after: { username: 'literal', password: '(sensitive, literal in the manifest)' },
    secret_sources: { password: { literal: true } },
  }),
  change({
    address: 'SipCredential/moved',
    action: 'update',
    id: 'u1',
    secrets: { password: { value: 'same', source_before: { fromEnv: 'PBX_PW' } } },
    secret_sources: { password: { fromEnv: 'PBX_PW_2' } },
  }),
  change({
    address: 'SipCredential/rotated',
    action: 'update',
    id: 'u2',
    secrets: { password: { value: 'changed' } },
    secret_sources: { password: { fromFile: 'secrets/rotated.txt' } },
  }),
  change({
    address: 'SipCredential/both',
    action: 'update',
    id: 'u3',
    secrets: { password: { value: 'changed', source_before: { literal: true } } },
    secret_sources: { password: { fromEnv: 'BOTH_PW' } },
  }),
]);

const lines = [
  'password = (sensitive, from env PBX_PW)',
  'password = (sensitive, from file secrets/pbx.txt)',
  'password = (sensitive, literal in the manifest)',
  'password: (sensitive, from env PBX_PW) → (sensitive, from env PBX_PW_2)',
  'password = (sensitive, from file secrets/rotated.txt) changed',
  'password: (sensitive, literal in the manifest) → (sensitive, from env BOTH_PW) (value changed)',
];

describe('secret sources in plans', () => {
  it('text names each source and shows a change of source as a change', () => {
    const text = renderText(sources, { color: false });
    expect(text).toContain(`      + ${lines[0]}\n`);
    expect(text).toContain(`      + ${lines[1]}\n`);
    expect(text).toContain(`      + ${lines[2]}\n`);
    expect(text).toContain(`  ~ SipCredential/moved (id u1)\n      ~ ${lines[3]}\n`);
    expect(text).toContain(`      ~ ${lines[4]}\n`);
    expect(text).toContain(`      ~ ${lines[5]}\n`);
  });

  it('markdown shows the same lines in its diff blocks', () => {
    const markdown = renderMarkdown(sources);
    for (const line of lines.slice(0, 3)) expect(markdown).toContain(`\n+ ${line}\n`);
    for (const line of lines.slice(3)) expect(markdown).toContain(`\n! ${line}\n`);
  });

  it('JSON carries the sources and the source recorded before', () => {
    const json = JSON.parse(renderJson(sources)) as { changes: Array<Record<string, unknown>> };
    expect(json.changes.map((item) => item.secret_sources)).toEqual([
      { password: { fromEnv: 'PBX_PW' } },
      { password: { fromFile: 'secrets/pbx.txt' } },
      { password: { literal: true } },
      { password: { fromEnv: 'PBX_PW_2' } },
      { password: { fromFile: 'secrets/rotated.txt' } },
      { password: { fromEnv: 'BOTH_PW' } },
    ]);
    expect(json.changes[3]?.secrets).toEqual({ password: { value: 'same', source_before: { fromEnv: 'PBX_PW' } } });
  });
});
