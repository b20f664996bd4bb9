// The studio (web/, built by Vite into dist/web by `npm install`) served as static files by the API process.
// The app's own paths (/, /invite/…, /app/…) answer index.html so that a reload or a shared link opens the right
// page; hashed assets are cached for a year, index.html never (a new build is picked up at once). The build writes a
// .br and a .gz beside each text file (web/vite.config.ts); `preCompressed` sends the one the browser accepts.
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { App } from '../types.js';

export const STUDIO_DIR = fileURLToPath(new URL('../../../dist/web/', import.meta.url));

export async function studioRoutes(app: App, { root = STUDIO_DIR }: { root?: string } = {}) {
  if (!fs.existsSync(`${root}/index.html`)) {
    app.log.warn({ root }, 'the studio is not built (run npm install or npm run build:web); / answers 404');
    return;
  }
  await app.register(fastifyStatic, {
    root,
    prefix: '/',
    wildcard: false,
    index: false,
    preCompressed: true,
    // send's own Cache-Control ('public, max-age=0') is written after setHeaders and would replace ours.
    cacheControl: false,
    setHeaders(res, file) {
      res.setHeader('cache-control', file.includes('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache');
      res.setHeader('x-content-type-options', 'nosniff');
      // The same URL answers brotli, gzip or plain by Accept-Encoding: caches must keep them apart.
      res.setHeader('vary', 'accept-encoding');
    },
  });
  const index = (
    _request: unknown,
    reply: { sendFile(name: string): unknown; header(k: string, v: string): unknown },
  ) => {
    reply.header('cache-control', 'no-cache');
    reply.header('x-frame-options', 'DENY');
    return reply.sendFile('index.html');
  };
  for (const url of ['/', '/invite/*', '/app', '/app/*']) app.get(url, { schema: { hide: true } }, index as never);
}
