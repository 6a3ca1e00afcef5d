import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Service } from 'kubernetes-models/v1/Service';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { parseAllDocuments } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServeMetrics } from '../../src/serve/metrics.js';
import { startServer, type RunningServer } from '../../src/serve/server.js';
import { ServeService } from '../../src/serve/service.js';
import { systemClock } from '../../src/util/clock.js';
import { repository } from '../e2e/cli.js';
import { parseError } from './template-commands.js';

/**
 * How serve ships, checked without a cluster or a Docker engine (neither runs here): the Kubernetes
 * manifests against the Kubernetes API's own schemas (the OpenAPI definitions compiled by ajv, from
 * the kubernetes-models package), their command line against the CLI's parser, their probes against
 * a real serve server; the Dockerfile's install from the packed package and its command likewise.
 */

const read = (file: string) => readFile(path.join(repository, file), 'utf8');

interface Container {
  name: string;
  command: string[];
  args: string[];
  ports: Array<{ name: string; containerPort: number }>;
  env?: Array<{ name: string; value?: string }>;
  envFrom: Array<{ secretRef: { name: string } }>;
  readinessProbe: { httpGet: { path: string; port: string } };
  livenessProbe: { httpGet: { path: string; port: string } };
}
interface DeploymentDoc {
  kind: 'Deployment';
  spec: {
    replicas: number;
    selector: { matchLabels: Record<string, string> };
    template: { spec: { terminationGracePeriodSeconds: number; containers: Container[] } };
  };
}

let server: RunningServer;
beforeAll(async () => {
  const metrics = new ServeMetrics({ processMetrics: false });
  const logger = { log: () => undefined };
  const service = new ServeService([], {
    intervalMs: 60_000,
    jitter: 0,
    concurrency: 1,
    apply: 'never',
    clock: systemClock,
    logger,
    metrics,
    sinks: [],
  });
  service.start();
  server = await startServer(
    { service, metrics, logger, now: () => Date.now(), version: 'test' },
    { host: '127.0.0.1', port: 0 },
  );
});
afterAll(async () => server?.close());

describe('integrations/kubernetes/telform-serve.yaml', () => {
  it('is a Deployment, a PodDisruptionBudget and a Service valid against the Kubernetes schemas (and the check can fail)', async () => {
    const documents = parseAllDocuments(await read('integrations/kubernetes/telform-serve.yaml')).map(
      (document) => document.toJS() as Record<string, unknown>,
    );
    expect(documents.map((document) => `${document.apiVersion} ${document.kind}`)).toEqual([
      'apps/v1 Deployment',
      'policy/v1 PodDisruptionBudget',
      'v1 Service',
    ]);
    expect(() => new Deployment(documents[0] as never).validate()).not.toThrow();
    expect(() => new PodDisruptionBudget(documents[1] as never).validate()).not.toThrow();
    expect(() => new Service(documents[2] as never).validate()).not.toThrow();
    const broken = structuredClone(documents[0]) as unknown as DeploymentDoc;
    (broken.spec.template.spec.containers[0] as unknown as { ports: unknown[] }).ports = [
      { name: 'http', containerPort: '8080' },
    ];
    expect(() => new Deployment(broken as never).validate()).toThrow(/containerPort must be integer/);
  });

  it('runs a command line the CLI accepts, on the port its probes, Service and metrics use, with secrets only by reference', async () => {
    const [deployment, budget, service] = parseAllDocuments(
      await read('integrations/kubernetes/telform-serve.yaml'),
    ).map((document) => document.toJS()) as [
      DeploymentDoc,
      { spec: { maxUnavailable: number; selector: { matchLabels: Record<string, string> } } },
      { spec: { ports: Array<{ targetPort: string }> } },
    ];
    const container = deployment.spec.template.spec.containers[0] as Container;
    expect(container.command).toEqual(['telform']);
    expect(await parseError(container.args)).toBeUndefined();
    const option = (name: string) => container.args[container.args.indexOf(name) + 1];
    expect(option('--listen')).toBe(`0.0.0.0:${container.ports[0]?.containerPort}`);
    expect(service.spec.ports[0]?.targetPort).toBe(container.ports[0]?.name);
    // SIGTERM drains within --drain-timeout; the pod is killed only after its grace period.
    expect(option('--drain-timeout')).toBe('30s');
    expect(deployment.spec.template.spec.terminationGracePeriodSeconds).toBeGreaterThan(30);
    expect(container.env ?? []).toEqual([]);
    // Several replicas share the accounts through the queue, never split by --shard; a disruption
    // takes one of them at a time.
    expect(deployment.spec.replicas).toBeGreaterThan(1);
    expect(option('--queue')).toBe('state');
    expect(container.args).not.toContain('--shard');
    expect(budget.spec.maxUnavailable).toBe(1);
    expect(budget.spec.selector.matchLabels).toEqual(deployment.spec.selector.matchLabels);
    expect(container.envFrom.map((source) => source.secretRef.name)).toEqual(['telform-accounts', 'telform-state']);
    for (const probe of [container.readinessProbe, container.livenessProbe]) {
      expect(probe.httpGet.port).toBe('http');
      expect((await fetch(`${server.url}${probe.httpGet.path}`)).status).toBe(200);
    }
  });
});

describe('integrations/container/Dockerfile', () => {
  it('installs the packed package and serves on the port it exposes and probes', async () => {
    const lines = (await read('integrations/container/Dockerfile'))
      .split('\n')
      .filter((line) => line.trim() !== '' && !line.startsWith('#'));
    const instructions = lines.map((line) => line.split(' ')[0]);
    expect(instructions).toEqual([
      'FROM',
      'ARG',
      'COPY',
      'RUN',
      'FROM',
      'COPY',
      'RUN',
      'USER',
      'WORKDIR',
      'ENV',
      'EXPOSE',
      'HEALTHCHECK',
      'ENTRYPOINT',
      'CMD',
    ]);
    expect(lines.filter((line) => line.startsWith('FROM')).every((line) => line.startsWith('FROM node:20-'))).toBe(
      true,
    );
    expect(lines).toContain('COPY ${TARBALL} /tmp/package.tgz');
    expect(lines).toContain('RUN npm install --global --omit=dev --no-audit --no-fund /tmp/package.tgz');
    expect(lines).toContain('ENTRYPOINT ["telform"]');
    const command = JSON.parse(lines.find((line) => line.startsWith('CMD'))?.slice(4) ?? '[]') as string[];
    expect(await parseError(command)).toBeUndefined();
    const port = command[command.indexOf('--listen') + 1]?.split(':')[1];
    expect(lines).toContain(`EXPOSE ${port}`);
    expect(lines.find((line) => line.startsWith('HEALTHCHECK'))).toContain(`http://127.0.0.1:${port}/healthz`);
    // The package the image installs ships the CLI the image runs.
    const pkg = JSON.parse(await read('package.json')) as { bin: Record<string, string>; files: string[] };
    expect(pkg.bin.telform).toBe('dist/cli/main.js');
    expect(lines).toContain(
      'RUN ln -s ../lib/node_modules/telform/dist/cli/main.js /usr/local/bin/telform && telform --version',
    );
  });
});
