#!/usr/bin/env node
// The GitLab API side of telform.gitlab-ci.yml, with Node's built-ins only:
//   note MARKER FILE            one merge-request note per marker, created once, then edited
//   reviewed-plan OUT           the plan artifact reviewed in the merge request of this commit;
//                               prints the reviewed head's sha and the merge request's iid
//   drift-issue open|close FILE one open issue labelled telform-drift, updated or closed
// It reads GitLab's predefined variables and TELFORM_GITLAB_TOKEN (a project access token with
// scope api). The token is sent only to CI_API_V4_URL and never printed.
import { readFile, writeFile } from 'node:fs/promises';

const env = process.env;
const api = env.CI_API_V4_URL;
const project = encodeURIComponent(env.CI_PROJECT_ID ?? '');
const token = env.TELFORM_GITLAB_TOKEN ?? '';
const planJob = env.TELFORM_PLAN_JOB ?? 'telform-plan';
const planFile = env.TELFORM_PLAN_FILE ?? 'telform-plan.json';
const driftLabel = 'telform-drift';

function fail(message) {
  process.stderr.write(`error: ${message}\n`);
  process.exit(1);
}

async function request(method, path, body) {
  const response = await fetch(`${api}/projects/${project}${path}`, {
    method,
    headers: { 'PRIVATE-TOKEN': token, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  if (!response.ok) fail(`GitLab answered ${response.status} to ${method} ${path}`);
  return response;
}

const json = async (method, path, body) => (await request(method, path, body)).json();

/** The note carrying this hidden marker is edited in place, so a merge request has one plan note. */
async function note(marker, file) {
  // An apply job (a push pipeline) names the merge request it applied in TELFORM_MERGE_REQUEST_IID.
  const iid = env.CI_MERGE_REQUEST_IID || env.TELFORM_MERGE_REQUEST_IID;
  if (!iid || !token) {
    process.stderr.write('not posting the merge-request note: no merge request or no TELFORM_GITLAB_TOKEN\n');
    return;
  }
  const tag = `<!-- ${marker} -->`;
  const body = `${tag}\n${await readFile(file, 'utf8')}`;
  const notes = await json('GET', `/merge_requests/${iid}/notes?per_page=100&sort=asc`);
  const existing = notes.find((entry) => typeof entry.body === 'string' && entry.body.startsWith(tag));
  if (existing) await request('PUT', `/merge_requests/${iid}/notes/${existing.id}`, { body });
  else await request('POST', `/merge_requests/${iid}/notes`, { body });
}

/**
 * The merge request this commit merged, its last head, and the plan job that succeeded on that
 * head. Anything missing is a refusal: the apply job never plans on its own.
 */
async function reviewedPlan(out) {
  const sha = env.CI_COMMIT_SHA;
  if (!token) fail('TELFORM_GITLAB_TOKEN is not set, so the reviewed plan cannot be fetched; nothing was applied');
  const requests = await json('GET', `/repository/commits/${sha}/merge_requests`);
  const merged = requests.find((entry) => entry.state === 'merged');
  if (!merged) fail(`commit ${sha} did not come from a merged merge request, so there is no reviewed plan; nothing was applied`);
  const pipelines = await json('GET', `/merge_requests/${merged.iid}/pipelines?per_page=100`);
  const pipeline = pipelines.find((entry) => entry.sha === merged.sha && entry.status === 'success');
  if (!pipeline) {
    fail(`merge request !${merged.iid} has no successful pipeline for its last head ${merged.sha}, so its last push was never planned; nothing was applied`);
  }
  const jobs = await json('GET', `/pipelines/${pipeline.id}/jobs?per_page=100`);
  const job = jobs.find((entry) => entry.name === planJob && entry.status === 'success');
  if (!job) fail(`pipeline ${pipeline.id} of merge request !${merged.iid} has no successful ${planJob} job; nothing was applied`);
  const artifact = await request('GET', `/jobs/${job.id}/artifacts/${planFile}`);
  await writeFile(out, Buffer.from(await artifact.arrayBuffer()));
  process.stderr.write(`reviewed plan: merge request !${merged.iid}, head ${merged.sha}, job ${job.id}\n`);
  process.stdout.write(`${merged.sha} ${merged.iid}\n`);
}

async function driftIssue(action, file) {
  if (!token) {
    process.stderr.write('not updating the drift issue: TELFORM_GITLAB_TOKEN is not set\n');
    return;
  }
  const open = await json('GET', `/issues?labels=${driftLabel}&state=opened&per_page=1`);
  const issue = open[0];
  if (action === 'close') {
    if (issue) await request('PUT', `/issues/${issue.iid}`, { state_event: 'close' });
    return;
  }
  const description = await readFile(file, 'utf8');
  if (issue) await request('PUT', `/issues/${issue.iid}`, { description });
  else await request('POST', '/issues', { title: 'telform: the account changed outside telform', labels: driftLabel, description });
}

const [command, first, second] = process.argv.slice(2);
if (!api) fail('CI_API_V4_URL is not set: run this inside a GitLab pipeline');
if (command === 'note' && first && second) await note(first, second);
else if (command === 'reviewed-plan' && first) await reviewedPlan(first);
else if (command === 'drift-issue' && (first === 'open' || first === 'close') && second) await driftIssue(first, second);
else fail('usage: telform-gitlab.mjs note MARKER FILE | reviewed-plan OUT | drift-issue open|close FILE');
