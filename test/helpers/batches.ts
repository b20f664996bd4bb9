// Shared by the batch tests (issue 22): a two-size template whose rows can be told apart by a pixel, and a webhook
// receiver that keeps every request.
import http, { type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestApp } from './app.js';

// biome-ignore lint/suspicious/noExplicitAny: webhook bodies are read field by field and asserted on.
type Json = Record<string, any>;

export interface Received {
  headers: IncomingHttpHeaders;
  json: Json;
}

export async function startReceiver() {
  const requests = new Map<string, Received[]>();
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      const list = requests.get(req.url ?? '/') ?? [];
      list.push({ headers: req.headers, json: JSON.parse(body) });
      requests.set(req.url ?? '/', list);
      res.writeHead(200).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: (route: string) => `${origin}${route}`,
    received: (route: string) => requests.get(route) ?? [],
    async waitFor(route: string, count: number): Promise<Received[]> {
      const deadline = Date.now() + 60_000;
      while ((requests.get(route)?.length ?? 0) < count) {
        if (Date.now() > deadline) throw new Error(`${route}: ${requests.get(route)?.length ?? 0} of ${count} calls`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return requests.get(route) ?? [];
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A two-size set: a panel filling each size (BGCOLOR from a column), a headline, a photo. */
export function pairDocument(photoUrl: string) {
  const size = (name: string, width: number, height: number) => ({
    name,
    width,
    height,
    backgroundColor: '#000000',
    slides: [
      {
        duration: 5,
        elements: [
          { name: 'panel', type: 'shape', shape: 'rect', fill: '#FFFFFF', x: 0, y: 0, width, height },
          {
            name: 'headline',
            type: 'text',
            x: 2,
            y: 2,
            width: width - 4,
            height: 12,
            text: 'Title',
            fontFamily: 'Inter',
            fontVariant: '400',
            fontSize: 8,
            color: '#000000',
          },
          {
            name: 'photo',
            type: 'image',
            x: width - 12,
            y: height - 12,
            width: 10,
            height: 10,
            src: photoUrl,
            fit: 'fill',
          },
        ],
      },
    ],
  });
  return { name: 'Pair', sizes: [size('Wide', 60, 50), size('Square', 40, 40)] };
}

const hex = (n: number) => n.toString(16).padStart(2, '0').toUpperCase();
/** A distinct colour per row, so each file can be told apart by a pixel. */
export const colorOf = (i: number): [number, number, number] => [i % 256, (Math.floor(i / 256) * 50) % 256, 128];
export const cssOf = (i: number) => `#${colorOf(i).map(hex).join('')}`;

const TERMINAL = new Set(['complete', 'completeWithError', 'failed', 'cancelled']);

/** The calls every batch test makes against its app: a JSON request, an expected 200, a batch's end, all its rows. */
export function batchApi(app: () => TestApp) {
  async function api(method: string, url: string, body?: unknown, headers?: Record<string, string>) {
    const t = app();
    const sent = headers ?? t.owner.headers;
    const res = await t.app.inject({
      method: method as 'GET',
      url,
      headers: body === undefined ? sent : { ...sent, 'content-type': 'application/json' },
      payload: body === undefined ? undefined : JSON.stringify(body),
    });
    let json: Json = {};
    try {
      json = res.body ? JSON.parse(res.body) : {};
    } catch {}
    return { status: res.statusCode, headers: res.headers, body: res.body, raw: res.rawPayload, json };
  }

  async function ok(method: string, url: string, body?: unknown, headers?: Record<string, string>) {
    const res = await api(method, url, body, headers);
    if (res.status !== 200) throw new Error(`${method} ${url}: ${res.status} ${res.body}`);
    return res.json.response;
  }

  /** The batch once it has ended; a generous deadline, since a loaded CI machine renders slowly. */
  async function waitForBatch(id: number): Promise<Json> {
    const deadline = Date.now() + 300_000;
    for (;;) {
      const found = await ok('GET', `/v1/batches/${id}`);
      if (TERMINAL.has(found.status) && found.finishedAt) return found;
      if (Date.now() > deadline) throw new Error(`batch ${id} still ${found.status}: ${JSON.stringify(found.counts)}`);
      await new Promise((resolve) => setTimeout(resolve, 40));
    }
  }

  /** Every row of a batch, page by page. */
  async function allRows(id: number): Promise<Json[]> {
    const rows: Json[] = [];
    let cursor = '';
    for (;;) {
      const page = await ok('GET', `/v1/batches/${id}/rows?limit=100${cursor ? `&cursor=${cursor}` : ''}`);
      rows.push(...page.nodes);
      if (!page.pageInfo.hasNextPage) return rows;
      cursor = page.pageInfo.endCursor;
    }
  }

  return { api, ok, waitForBatch, allRows };
}
