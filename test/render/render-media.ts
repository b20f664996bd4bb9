// Media and documents for render tests: a "photo" whose four quadrants and centre disc make every crop and stretch
// visible (PNG and JPEG), an SVG logo of three colours, all served by a real HTTP server on 127.0.0.1; fixture
// documents read from test/render/fixtures/<name>.json with `{{media}}` standing for the server's origin.
import fs from 'node:fs';
import path from 'node:path';
import { createCanvas } from '@napi-rs/canvas';
import { type DesignDocument, readDocument } from '../../src/domain/design.schema.js';
import { type AssetFetcher, createAssetFetcher } from '../../src/render/media/assets.js';
import { FIXTURES } from './golden.js';
import { type MediaServer, startMediaServer } from './media-fixtures.js';

export const QUADRANTS = {
  topLeft: [220, 38, 38],
  topRight: [22, 163, 74],
  bottomLeft: [37, 99, 235],
  bottomRight: [250, 204, 21],
} as const;

/** 200x100: red, green / blue, yellow quadrants and a white disc of radius 20 in the middle. */
export function photo(format: 'png' | 'jpeg' = 'png'): Buffer {
  const canvas = createCanvas(200, 100);
  const ctx = canvas.getContext('2d');
  const rgb = (c: readonly number[]) => `rgb(${c.join(',')})`;
  ctx.fillStyle = rgb(QUADRANTS.topLeft);
  ctx.fillRect(0, 0, 100, 50);
  ctx.fillStyle = rgb(QUADRANTS.topRight);
  ctx.fillRect(100, 0, 100, 50);
  ctx.fillStyle = rgb(QUADRANTS.bottomLeft);
  ctx.fillRect(0, 50, 100, 50);
  ctx.fillStyle = rgb(QUADRANTS.bottomRight);
  ctx.fillRect(100, 50, 100, 50);
  ctx.fillStyle = '#FFFFFF';
  ctx.beginPath();
  ctx.arc(100, 50, 20, 0, Math.PI * 2);
  ctx.fill();
  return format === 'png' ? canvas.encodeSync('png') : canvas.encodeSync('jpeg', 95);
}

/** A 100x50 logo: a blue field, an amber disc, a white triangle outlined in the field's blue (3 distinct colours). */
export const LOGO_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 50" width="100" height="50">' +
  '<rect width="100" height="50" fill="#1D4ED8"/><circle cx="25" cy="25" r="18" fill="#F59E0B"/>' +
  '<path d="M60 8 L92 25 L60 42 Z" fill="#ffffff" stroke="#1d4ed8" stroke-width="2"/></svg>';

export interface RenderMedia {
  server: MediaServer;
  origin: string;
  fetcher: AssetFetcher;
  /** A fixture document with its media URLs pointing at the server. */
  fixture(name: string): DesignDocument;
  close(): Promise<void>;
}

export async function startRenderMedia(): Promise<RenderMedia> {
  const server = await startMediaServer();
  const files: Record<string, [string, Buffer]> = {
    '/photo.png': ['image/png', photo('png')],
    '/photo.jpg': ['image/jpeg', photo('jpeg')],
    '/logo.svg': ['image/svg+xml', Buffer.from(LOGO_SVG)],
  };
  for (const [route, [type, body]] of Object.entries(files)) {
    server.route(route, (_req, res) => {
      res.writeHead(200, { 'content-type': type, 'content-length': body.length }).end(body);
    });
  }
  // Fresh per suite: the fetcher's and the image cache's entries belong to this server's port.
  const fetcher = createAssetFetcher({ allowPrivateUrls: true, probe: null });
  return {
    server,
    origin: server.origin,
    fetcher,
    fixture(name) {
      const text = fs.readFileSync(path.join(FIXTURES, `${name}.json`), 'utf8').replaceAll('{{media}}', server.origin);
      return readDocument(JSON.parse(text));
    },
    close: () => server.close(),
  };
}
