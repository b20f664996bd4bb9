// Shared by the batch tests (issue 22): a two-size template whose rows can be told apart by a pixel, and a webhook
// receiver that keeps every request.
import http, { type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

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
