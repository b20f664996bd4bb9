// Media made in the test (no binary fixtures): PNG, GIF, SVG and WAV bytes, and a real HTTP server on 127.0.0.1 that
// counts the requests of each path.
import { once } from 'node:events';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(zlib.crc32(body) >>> 0);
  return Buffer.concat([length, body, crc]);
}

export const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function ihdr(width: number, height: number): Buffer {
  const data = Buffer.alloc(13);
  data.writeUInt32BE(width, 0);
  data.writeUInt32BE(height, 4);
  data[8] = 8; // bit depth
  data[9] = 2; // RGB
  return pngChunk('IHDR', data);
}

/** A valid RGB PNG filled with one colour. */
export function png(width: number, height: number, rgb: [number, number, number] = [255, 0, 0]): Buffer {
  const row = Buffer.alloc(1 + width * 3);
  for (let x = 0; x < width; x++) row.set(rgb, 1 + x * 3);
  const raw = Buffer.concat(Array.from({ length: height }, () => row));
  return Buffer.concat([
    PNG_SIGNATURE,
    ihdr(width, height),
    pngChunk('IDAT', zlib.deflateSync(raw)),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A PNG whose header claims a size its (empty) pixel data does not have: enough for header-only checks. */
export function pngHeaderOnly(width: number, height: number): Buffer {
  return Buffer.concat([PNG_SIGNATURE, ihdr(width, height), pngChunk('IEND', Buffer.alloc(0))]);
}

/** A 1x1 GIF89a, padded after its trailer to `size` bytes when asked. */
export function gif(size = 0): Buffer {
  const pixel = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
  return size > pixel.length ? Buffer.concat([pixel, Buffer.alloc(size - pixel.length)]) : pixel;
}

export function svg(body = '<rect width="10" height="10" fill="#F00"/>', attrs = 'width="120" height="60"'): Buffer {
  return Buffer.from(
    `<?xml version="1.0" encoding="UTF-8"?>\n<!-- made in a test -->\n<svg xmlns="http://www.w3.org/2000/svg" ${attrs}>${body}</svg>`,
  );
}

/** A mono 8-bit PCM WAV of silence lasting `seconds` at `rate` samples per second. */
export function wav(seconds: number, rate = 8000): Buffer {
  const samples = Math.round(seconds * rate);
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'latin1');
  header.writeUInt32LE(36 + samples, 4);
  header.write('WAVE', 8, 'latin1');
  header.write('fmt ', 12, 'latin1');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(rate, 24);
  header.writeUInt32LE(rate, 28); // byte rate
  header.writeUInt16LE(1, 32); // block align
  header.writeUInt16LE(8, 34); // bits per sample
  header.write('data', 36, 'latin1');
  header.writeUInt32LE(samples, 40);
  return Buffer.concat([header, Buffer.alloc(samples, 0x80)]);
}

export type Handler = (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;

export interface MediaServer {
  /** http://127.0.0.1:<port> */
  origin: string;
  port: number;
  /** Requests received per path (without the query). */
  hits: Map<string, number>;
  /** Host header of the last request per path. */
  hosts: Map<string, string | undefined>;
  route(path: string, handler: Handler): void;
  close(): Promise<void>;
}

export async function startMediaServer(): Promise<MediaServer> {
  const routes = new Map<string, Handler>();
  const hits = new Map<string, number>();
  const hosts = new Map<string, string | undefined>();
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    hits.set(path, (hits.get(path) ?? 0) + 1);
    hosts.set(path, req.headers.host);
    const handler = routes.get(path);
    if (!handler) {
      res.writeHead(404).end('not found');
      return;
    }
    Promise.resolve(handler(req, res)).catch(() => res.destroy());
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    hits,
    hosts,
    route: (path, handler) => routes.set(path, handler),
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

/** Writes `total` bytes (after `head`) in 64 KiB chunks, waiting for the socket to drain; resolves with the bytes written. */
export async function streamBytes(res: ServerResponse, head: Buffer, total: number): Promise<number> {
  let written = 0;
  const closed = once(res, 'close').then(() => 'closed' as const);
  const send = async (chunk: Buffer) => {
    written += chunk.length;
    if (!res.write(chunk)) {
      const outcome = await Promise.race([once(res, 'drain').then(() => 'drained' as const), closed]);
      if (outcome === 'closed') return false;
    }
    return !res.destroyed;
  };
  if (!(await send(head))) return written;
  const chunk = Buffer.alloc(64 * 1024);
  while (written < total) {
    if (!(await send(chunk.subarray(0, Math.min(chunk.length, total - written))))) return written;
  }
  res.end();
  return written;
}
