import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import { PartialListError } from '../../src/api/errors.js';
import { listAll } from '../../src/api/list.js';
import { InstantClock } from '../support/clock.js';

/**
 * Whole lists: lists are read whole, or not at all. A fake API on 127.0.0.1 serves pages that
 * a test shapes: short pages, a list that changes while it is read, failing pages, `next` links.
 */
type Page = { status: number; body: unknown };
let server: Server;
let serve: (offset: number, url: URL) => Page;
const seen: string[] = [];
let baseUrl: string;

function items(from: number, count: number): Array<{ id: string }> {
  return Array.from({ length: Math.max(0, count) }, (_, index) => ({ id: `item-${from + index}` }));
}

/** A consistent list of `total` items, paged like the API. */
function consistent(total: number): (offset: number) => Page {
  return (offset) => ({
    status: 200,
    body: { meta: { total_count: total, limit: 20, offset }, objects: items(offset, Math.min(20, total - offset)) },
  });
}

beforeAll(async () => {
  server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://fake');
    seen.push(`${url.pathname}${url.search}`);
    const page = serve(Number(url.searchParams.get('offset') ?? 0), url);
    response.writeHead(page.status, { 'content-type': 'application/json' });
    response.end(JSON.stringify(page.body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});
beforeEach(() => {
  seen.length = 0;
});

async function list(path = '/Things/'): Promise<Array<{ id: string }>> {
  const client = new ApiClient({ baseUrl, credentials: { authId: 'MA1', authToken: 't' }, clock: new InstantClock() });
  try {
    return await listAll<{ id: string }>(client, path, { itemsKey: 'objects', idOf: (item) => item.id });
  } finally {
    await client.close();
  }
}

describe('listAll', () => {
  it('reads every page once total_count is known, de-duplicating items', async () => {
    serve = (offset) => {
      const page = consistent(45)(offset);
      // An item repeated on the next page (lists shift while paged) is kept once.
      if (offset === 20) (page.body as { objects: Array<{ id: string }> }).objects.push({ id: 'item-0' });
      return page;
    };
    const result = await list();
    expect(result.map((item) => item.id)).toEqual(items(0, 45).map((item) => item.id));
    expect(seen.sort()).toEqual([
      '/v1/Account/MA1/Things/?limit=20&offset=0',
      '/v1/Account/MA1/Things/?limit=20&offset=20',
      '/v1/Account/MA1/Things/?limit=20&offset=40',
    ]);
  });

  it('reads once more when the list changed while it was read, and uses that read', async () => {
    let reads = 0;
    serve = (offset) => {
      if (offset === 0) reads += 1;
      return reads === 1 && offset === 20 ? consistent(44)(offset) : consistent(45)(offset);
    };
    expect(await list()).toHaveLength(45);
    expect(seen).toHaveLength(6);
  });

  it('refuses a list that keeps coming back short', async () => {
    serve = (offset) =>
      offset === 20
        ? { status: 200, body: { meta: { total_count: 45 }, objects: items(20, 5) } }
        : consistent(45)(offset);
    const failure = await list().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(PartialListError);
    expect((failure as Error).message).toBe('could not read the whole list /Things/: came back short: 30 of 45 items');
  });

  it('refuses a list with a page that cannot be read', async () => {
    serve = (offset) => (offset === 40 ? { status: 500, body: { error: 'boom' } } : consistent(45)(offset));
    const failure = await list().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(PartialListError);
    expect((failure as Error).message).toBe(
      'could not read the whole list /Things/: GET /Things/ failed after 6 attempts: HTTP 500: boom',
    );
  });

  it('refuses a page without its items array', async () => {
    serve = () => ({ status: 200, body: { meta: { total_count: 3 }, brands: [] } });
    await expect(list()).rejects.toThrow('could not read the whole list /Things/: the response has no "objects" array');
  });

  it('follows next links, with or without their leading slash, when there is no total_count', async () => {
    serve = (offset) => {
      const next =
        offset === 0
          ? 'v1/Account/MA1/Things/?limit=20&offset=20'
          : offset === 20
            ? '/v1/Account/MA1/Things/?limit=20&offset=40'
            : null;
      return { status: 200, body: { meta: { next }, objects: items(offset, offset === 40 ? 3 : 20) } };
    };
    expect(await list()).toHaveLength(43);
    expect(seen).toEqual([
      '/v1/Account/MA1/Things/?limit=20&offset=0',
      '/v1/Account/MA1/Things/?limit=20&offset=20',
      '/v1/Account/MA1/Things/?limit=20&offset=40',
    ]);
  });

  it('refuses next links that go round in a circle', async () => {
    serve = () => ({
      status: 200,
      body: { meta: { next: '/v1/Account/MA1/Things/?offset=20' }, objects: items(0, 20) },
    });
    await expect(list()).rejects.toThrow(
      'could not read the whole list /Things/: the page at offset 20 repeats items already read',
    );
  });

  // Production's lists (real accounts): no meta at all, meta without total_count or next, absolute next links.
  it('reads a list answered without meta by offset, advanced by what came back, until a page comes back empty', async () => {
    // Production may answer fewer than asked (10 per page): a short page is not the end.
    serve = (offset) => ({
      status: 200,
      body: { api_id: 'a', objects: items(offset, Math.max(0, Math.min(10, 25 - offset))) },
    });
    expect(await list()).toHaveLength(25);
    expect(seen).toEqual([
      '/v1/Account/MA1/Things/?limit=20&offset=0',
      '/v1/Account/MA1/Things/?limit=20&offset=10',
      '/v1/Account/MA1/Things/?limit=20&offset=20',
      '/v1/Account/MA1/Things/?limit=20&offset=25',
    ]);
  });

  it('reads a {count, limit, offset} answer (no meta) by its count, stepping by the page it got', async () => {
    serve = (offset) => ({
      status: 200,
      body: { api_id: 'a', count: 5, limit: 2, offset, objects: items(offset, Math.min(2, 5 - offset)) },
    });
    expect(await list()).toHaveLength(5);
    expect(seen).toEqual([
      '/v1/Account/MA1/Things/?limit=20&offset=0',
      '/v1/Account/MA1/Things/?limit=20&offset=2',
      '/v1/Account/MA1/Things/?limit=20&offset=4',
    ]);
  });

  it('refuses a list whose offset is ignored, instead of reading the first page for ever', async () => {
    serve = () => ({ status: 200, body: { api_id: 'a', objects: items(0, 20) } });
    await expect(list()).rejects.toThrow('the page at offset 20 repeats items already read');
  });

  it('reads a list whose meta has neither total_count nor next by offset, ending on an empty page', async () => {
    serve = (offset) => ({
      status: 200,
      body: { meta: { limit: 20, offset }, objects: items(offset, offset >= 40 ? 0 : 20) },
    });
    expect(await list()).toHaveLength(40);
    expect(seen).toHaveLength(3);
  });

  it('follows absolute next links on its own endpoint, stopping at a null next', async () => {
    serve = (offset) => {
      const next = offset === 0 ? 'https://api.example.com/v1/Account/MA1/Things/?limit=20&offset=20' : null;
      return { status: 200, body: { meta: { limit: 20, next, offset }, objects: items(offset, 20) } };
    };
    expect(await list()).toHaveLength(40);
    expect(seen).toEqual(['/v1/Account/MA1/Things/?limit=20&offset=0', '/v1/Account/MA1/Things/?limit=20&offset=20']);
  });

  it('takes a 200 whose body holds an error and no result as the failure it is', async () => {
    serve = () => ({ status: 200, body: { api_id: 'a', error: 'SIP trunking not enabled' } });
    await expect(list()).rejects.toThrow(
      'could not read the whole list /Things/: the API answered 200 to GET /Things/: SIP trunking not enabled',
    );
  });
});

describe('a list that grows while it is read', () => {
  it('is not short: after re-reading, a read in which every counted item came back is used', async () => {
    // Each page request lands one more parallel create at the end of the list.
    let total = 45;
    serve = (offset) => {
      total += 1;
      return consistent(total)(offset);
    };
    const result = await list();
    expect(result.length).toBeGreaterThanOrEqual(45);
    expect(new Set(result.map((item) => item.id)).size).toBe(result.length);
    // Four reads of three pages: the list never held still.
    expect(seen).toHaveLength(12);
  });

  it('still refuses a list that shrank while it was read and came back short', async () => {
    let total = 45;
    serve = (offset) => {
      total -= 1;
      return consistent(total)(offset);
    };
    await expect(list()).rejects.toThrow(
      /^could not read the whole list \/Things\/: came back short: \d+ of \d+ items$/,
    );
  });
});
