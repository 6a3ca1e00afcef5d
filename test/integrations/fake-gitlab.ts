import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The few GitLab API routes telform-gitlab.mjs uses, on 127.0.0.1: merge-request notes, the
 * merge request of a commit, its pipelines and jobs, a job's artifact, and issues. GitLab itself
 * cannot run in a test; every request is recorded so tests can assert what the pipeline sent.
 */
export interface FakeGitlab {
  url: string;
  requests: Array<{
    method: string;
    path: string;
    token: string | undefined;
    body: Record<string, unknown> | undefined;
  }>;
  notes: Array<{ id: number; body: string }>;
  issues: Array<{ iid: number; state: 'opened' | 'closed'; title: string; description: string; labels: string }>;
  /** What `commits/:sha/merge_requests` answers: the merge request a commit came from. */
  mergeRequest: { iid: number; sha: string; state: string } | undefined;
  /** The artifact of the plan job, read when the apply job asks for it. */
  artifact: () => Promise<Buffer>;
  close(): Promise<void>;
}

const pipelineId = 501;
const planJobId = 7001;

export async function startFakeGitlab(projectId: string, artifact: () => Promise<Buffer>): Promise<FakeGitlab> {
  const fake: Omit<FakeGitlab, 'url' | 'close'> = {
    requests: [],
    notes: [],
    issues: [],
    mergeRequest: undefined,
    artifact,
  };
  const prefix = `/api/v4/projects/${projectId}`;
  const server: Server = createServer((request, response) => {
    (async () => {
      const body = await readBody(request);
      const url = new URL(request.url ?? '/', 'http://localhost');
      const token = request.headers['private-token'];
      fake.requests.push({
        method: request.method ?? '',
        path: url.pathname,
        token: typeof token === 'string' ? token : undefined,
        body,
      });
      const send = (status: number, value: unknown): void => {
        response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
      };
      if (!url.pathname.startsWith(prefix)) return send(404, { message: '404 Project Not Found' });
      const route = `${request.method} ${url.pathname.slice(prefix.length)}`;
      let match: RegExpMatchArray | null;
      if ((match = route.match(/^GET \/merge_requests\/\d+\/notes$/))) return send(200, fake.notes);
      if ((match = route.match(/^POST \/merge_requests\/\d+\/notes$/))) {
        const note = { id: 900 + fake.notes.length, body: String(body?.body) };
        fake.notes.push(note);
        return send(201, note);
      }
      if ((match = route.match(/^PUT \/merge_requests\/\d+\/notes\/(\d+)$/))) {
        const note = fake.notes.find((entry) => entry.id === Number(match?.[1]));
        if (!note) return send(404, { message: '404 Not found' });
        note.body = String(body?.body);
        return send(200, note);
      }
      if (route.match(/^GET \/repository\/commits\/[0-9a-f]+\/merge_requests$/))
        return send(200, fake.mergeRequest ? [fake.mergeRequest] : []);
      if (route.match(/^GET \/merge_requests\/\d+\/pipelines$/)) {
        return send(200, fake.mergeRequest ? [{ id: pipelineId, sha: fake.mergeRequest.sha, status: 'success' }] : []);
      }
      if (route === `GET /pipelines/${pipelineId}/jobs`)
        return send(200, [{ id: planJobId, name: 'telform-plan', status: 'success' }]);
      if (route.startsWith(`GET /jobs/${planJobId}/artifacts/`)) {
        response.writeHead(200, { 'content-type': 'application/octet-stream' }).end(await fake.artifact());
        return;
      }
      if (route === 'GET /issues') {
        const label = url.searchParams.get('labels');
        const state = url.searchParams.get('state');
        return send(
          200,
          fake.issues.filter((issue) => issue.labels === label && issue.state === state),
        );
      }
      if (route === 'POST /issues') {
        const issue = {
          iid: fake.issues.length + 1,
          state: 'opened' as const,
          title: String(body?.title),
          description: String(body?.description),
          labels: String(body?.labels),
        };
        fake.issues.push(issue);
        return send(201, issue);
      }
      if ((match = route.match(/^PUT \/issues\/(\d+)$/))) {
        const issue = fake.issues.find((entry) => entry.iid === Number(match?.[1]));
        if (!issue) return send(404, { message: '404 Not found' });
        if (body?.state_event === 'close') issue.state = 'closed';
        if (typeof body?.description === 'string') issue.description = body.description;
        return send(200, issue);
      }
      return send(404, { message: `no fake for ${route}` });
    })().catch((error: unknown) => {
      response.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ message: String(error) }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(fake, {
    url: `http://127.0.0.1:${port}/api/v4`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}

async function readBody(request: IncomingMessage): Promise<Record<string, unknown> | undefined> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  if (chunks.length === 0) return undefined;
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
}
