// A loopback proxy in front of the emulator that answers as production does for an account without
// a product: every request under one path segment (`/Zentrunk/`) gets 403 with the API's error body
// (or another status, for a read of one object that fails).
// It records the paths asked, so a test can see what a run read.
import { createServer, request as forward, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ProductGate {
  url: string;
  /** Paths requested (without the query), in order. */
  paths: string[];
  /** Refuses from now on the paths containing `refused` instead. */
  refuse(refused: string, message: string, status?: number): void;
  close(): Promise<void>;
}

export async function startProductGate(
  target: string,
  refused: string,
  message: string,
  status = 403,
): Promise<ProductGate> {
  const upstream = new URL(target);
  let rule = { refused, message, status };
  const paths: string[] = [];
  const server: Server = createServer((incoming, outgoing) => {
    const url = incoming.url ?? '/';
    paths.push(url.split('?')[0] ?? url);
    if (url.includes(rule.refused)) {
      outgoing.writeHead(rule.status, { 'content-type': 'application/json' });
      outgoing.end(JSON.stringify({ api_id: 'gate-0001', error: rule.message }));
      return;
    }
    const proxied = forward(
      { host: upstream.hostname, port: upstream.port, path: url, method: incoming.method, headers: incoming.headers },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    proxied.on('error', () => outgoing.destroy());
    incoming.pipe(proxied);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    paths,
    refuse: (next, text, code = 403) => {
      rule = { refused: next, message: text, status: code };
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
