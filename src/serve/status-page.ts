// The status page (`GET /` and `GET /accounts/NAME`): server-rendered HTML that needs no script,
// read-only, reloading itself every 30 s. It shows what serve knows — statuses, times, addresses,
// registry statuses and reasons, events — and never a value of a spec (so never a secret): a plan
// line is an address, an action and the planner's reasons. Every string goes through `html`.
import type { AccountView, Fleet } from './fleet.js';
import { Html, html } from './html.js';
import type { ServeEvent } from './model.js';
import type { QueueSnapshot } from './queue-view.js';

export interface PageContext {
  fleet: Fleet;
  now: number;
  /** `never` or `safe`. */
  applyMode: string;
  version: string;
  /** With a queue: this replica's name, and the queue as last read (the fleet view). */
  replica?: string;
  queue?: QueueSnapshot;
}

/**
 * The fleet as the queue sees it: every replica reads the same queue, so this part of the page is
 * the same on each; the accounts table below is what this replica itself looked at.
 */
function queueSection(queue: QueueSnapshot | undefined, now: number): Html | false {
  if (!queue) return false;
  const replicas = queue.doneByReplica.map(
    (row) =>
      html`<tr data-replica="${row.replica}"><td>${row.replica}</td><td>${String(row.checks)}</td><td>${String(row.applies)}</td></tr>`,
  );
  const running = queue.runningAccounts.map(
    (row) => html`<li>${row.account} (${row.step}, since ${when(row.since, now)})</li>`,
  );
  const late = queue.lateAccounts.map((row) => html`<li>${row.account} (due ${when(row.dueAt, now)})</li>`);
  return html`<h2>Fleet (from the queue, read ${when(queue.at, now)})</h2>
<p class="meta" id="queue">${String(queue.waiting)} waiting, ${String(queue.running)} running, ${String(queue.late)} late, ${String(queue.scheduled)} scheduled.</p>
${running.length > 0 ? html`<p>Running:</p><ul>${running}</ul>` : false}
${late.length > 0 ? html`<p>Late:</p><ul>${late}</ul>` : false}
<table id="replicas"><thead><tr><th>Replica</th><th>Checks (last ${span(Math.round(queue.recentMs / 1000))})</th><th>Applies</th></tr></thead>
<tbody>${replicas}</tbody></table>`;
}

const style = `
body{font:14px/1.45 system-ui,sans-serif;margin:1.5rem;color:#1d232a;background:#fbfbfc}
h1{font-size:1.3rem;margin:0 0 .2rem}h2{font-size:1.05rem;margin:1.6rem 0 .5rem}
p.meta{color:#5b6570;margin:0 0 1rem}
table{border-collapse:collapse;width:100%;background:#fff;box-shadow:0 0 0 1px #dde1e6}
th,td{text-align:left;padding:.35rem .6rem;border-bottom:1px solid #eceff2;vertical-align:top}
th{background:#f2f4f6;font-weight:600}
.status{display:inline-block;padding:.05rem .5rem;border-radius:.7rem;font-size:.85em;font-weight:600}
.in_sync{background:#dff3e4;color:#17612f}.drifted{background:#fde2cf;color:#8a3b06}.pending{background:#e3ecfb;color:#1f4d99}
.error{background:#fbd9d9;color:#8b1b1b}.unknown{background:#eceff2;color:#4a535c}
code{font:12px ui-monospace,monospace}ul{margin:0;padding-left:1.1rem}a{color:#1f4d99}
`;

function page(title: string, body: Html): string {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="refresh" content="30"><title>${title}</title><style>${new Html(style)}</style></head>
<body>${body}</body></html>
`.text;
}

function badge(status: string): Html {
  return html`<span class="status ${status}">${status.replace('_', ' ')}</span>`;
}

function when(at: number | undefined, now: number): Html {
  if (at === undefined) return html`<span>—</span>`;
  const seconds = Math.round((at - now) / 1000);
  const relative = seconds === 0 ? 'now' : seconds > 0 ? `in ${span(seconds)}` : `${span(-seconds)} ago`;
  return html`<time datetime="${new Date(at).toISOString()}">${relative}</time>`;
}

function span(seconds: number): string {
  if (seconds < 120) return `${seconds} s`;
  if (seconds < 7200) return `${Math.round(seconds / 60)} min`;
  return `${Math.round(seconds / 3600)} h`;
}

function registrySummary(view: AccountView): Html {
  const counts = new Map<string, number>();
  for (const { entry } of view.registry.values()) {
    const key = `${entry.kind} ${entry.status}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  if (counts.size === 0) return html`—`;
  return html`${[...counts].sort(([a], [b]) => a.localeCompare(b)).map(([key, count]) => html`<div>${count} × ${key}</div>`)}`;
}

function listOrDash(items: readonly string[], limit = 5): Html {
  if (items.length === 0) return html`—`;
  const shown = items.slice(0, limit).map((item) => html`<li><code>${item}</code></li>`);
  return html`<ul>${shown}${items.length > limit ? html`<li>and ${items.length - limit} more</li>` : false}</ul>`;
}

function describeEvent(event: ServeEvent): Html {
  switch (event.type) {
    case 'account_status':
      return html`status ${event.from.replace('_', ' ')} → ${badge(event.to)}${event.error ? html` <span>${event.error.message}</span>` : false}`;
    case 'registry_status':
      return html`<code>${event.address}</code> ${event.from} → ${event.to}${event.reason ? html` (${event.reason})` : false}`;
    case 'applied':
      return html`applied ${event.changes.length} change${event.changes.length === 1 ? '' : 's'}: ${event.summary}`;
    case 'apply_held':
      return html`apply held for a person: ${event.reasons.join('; ')}`;
    default: {
      const never: never = event;
      return never;
    }
  }
}

function eventsTable(events: readonly ServeEvent[], withAccount: boolean): Html {
  if (events.length === 0) return html`<p class="meta">No events yet.</p>`;
  const rows = events
    .slice(0, 50)
    .map(
      (event) =>
        html`<tr><td><time datetime="${event.at}">${event.at.replace('T', ' ').replace(/\.\d+Z$/, 'Z')}</time></td>${
          withAccount
            ? html`<td><a href="/accounts/${encodeURIComponent(event.account)}">${event.account}</a></td>`
            : false
        }<td>${event.cause}</td><td>${describeEvent(event)}</td></tr>`,
    );
  return html`<table id="events"><thead><tr><th>Time</th>${withAccount ? html`<th>Account</th>` : false}<th>Cause</th><th>Event</th></tr></thead><tbody>${rows}</tbody></table>`;
}

export function renderFleetPage(context: PageContext): string {
  const { fleet, now } = context;
  const views = [...fleet.accounts.values()].sort((a, b) => a.name.localeCompare(b.name));
  const counts = new Map<string, number>();
  for (const view of views) counts.set(view.status, (counts.get(view.status) ?? 0) + 1);
  const rows = views.map(
    (view) => html`<tr data-account="${view.name}">
<td><a href="/accounts/${encodeURIComponent(view.name)}">${view.name}</a></td>
<td>${badge(view.status)}${view.running ? html` <span class="meta">checking…</span>` : false}</td>
<td>${when(view.lastRunAt, now)}</td><td>${when(view.nextRunAt, now)}</td>
<td>${listOrDash(view.check?.drifted ?? [])}</td><td>${registrySummary(view)}</td>
<td>${view.check?.error ? view.check.error.message : ''}</td></tr>`,
  );
  const summary = [...counts].map(([status, count]) => `${count} ${status.replace('_', ' ')}`).join(', ');
  return page(
    'telform serve',
    html`<h1>telform serve</h1>
<p class="meta">${views.length} account${views.length === 1 ? '' : 's'}: ${summary}. Apply: ${context.applyMode}. telform ${context.version}.${context.replica === undefined ? '' : ` Replica ${context.replica}: what it looked at.`}</p>
<table id="fleet"><thead><tr><th>Account</th><th>Status</th><th>Last run</th><th>Next run</th><th>Drifted</th><th>Registry</th><th>Error</th></tr></thead>
<tbody>${rows}</tbody></table>
${queueSection(context.queue, now)}
<h2>Recent events</h2>${eventsTable(fleet.recentEvents(), true)}`,
  );
}

export function renderAccountPage(context: PageContext, name: string): string | undefined {
  const view = context.fleet.accounts.get(name);
  if (!view) return undefined;
  const { now } = context;
  const check = view.check;
  const planRows = (check?.plan ?? []).map(
    (line) =>
      html`<tr><td><code>${line.address}</code></td><td>${line.action}</td><td>${line.drifted ? 'yes' : 'no'}</td><td>${listOrDash(line.reasons, 10)}</td></tr>`,
  );
  const registryRows = [...view.registry.values()]
    .map(({ entry }) => entry)
    .sort((a, b) => a.address.localeCompare(b.address))
    .map(
      (entry) =>
        html`<tr><td><code>${entry.address}</code></td><td>${entry.kind}</td><td><code>${entry.id}</code></td><td>${entry.status}</td><td>${entry.reason ?? ''}</td></tr>`,
    );
  return page(
    `${name} · telform serve`,
    html`<p><a href="/">← all accounts</a></p><h1>${name} ${badge(view.status)}</h1>
<p class="meta">Last run ${when(view.lastRunAt, now)}${view.lastDurationMs === undefined ? '' : ` (${Math.round(view.lastDurationMs)} ms)`}, next run ${when(view.nextRunAt, now)}.</p>
${check?.error ? html`<p><strong>Error:</strong> ${check.error.message} <code>${check.error.code}</code></p>` : false}
<h2>Latest plan</h2>${
      planRows.length === 0
        ? html`<p class="meta">${check ? 'No changes: the account matches the manifests.' : 'Not checked yet.'}</p>`
        : html`<table id="plan"><thead><tr><th>Resource</th><th>Action</th><th>Drifted</th><th>Why</th></tr></thead><tbody>${planRows}</tbody></table>`
    }
${check && check.notes.length > 0 ? html`<h2>Registry notes</h2>${listOrDash(check.notes, 50)}` : false}
<h2>Registry</h2>${
      registryRows.length === 0
        ? html`<p class="meta">No brands, campaigns or number links managed.</p>`
        : html`<table id="registry"><thead><tr><th>Resource</th><th>Kind</th><th>Id</th><th>Status</th><th>Reason</th></tr></thead><tbody>${registryRows}</tbody></table>`
    }
<h2>Recent events</h2>${eventsTable(context.fleet.recentEvents(name), false)}`,
  );
}
