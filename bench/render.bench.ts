// Still renders: a 300x250 and a 1080x1920 banner (gradient, shapes, a photo, an SVG logo recoloured and not, a
// headline, body text and a button), media served over HTTP on 127.0.0.1. Per format: median and p95 ms of one whole
// render on this thread (assets already cached, as on a warm worker: draw + encode), and renders/s through the pool
// with 1 thread and with every thread. Runs the TypeScript sources (the pool's threads load worker.ts through tsx).
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { createCanvas } from '@napi-rs/canvas';
import { type DesignDocument, readDocument } from '../src/domain/design.schema.js';
import { type RasterFormat, renderFrame, renderImage } from '../src/formats/pipeline.js';
import { createRenderPool } from '../src/formats/pool.js';
import { createAssetFetcher } from '../src/render/media/assets.js';
import { printTable } from './table.js';

type Format = RasterFormat | 'pdf';
type PdfRenderer = (
  document: DesignDocument,
  sizeIndex: number,
  options: { fetcher?: ReturnType<typeof createAssetFetcher> },
) => Promise<Buffer>;

/** Renders timed per format and size on this thread, after 3 warm-up renders. */
const RUNS = { small: Number(process.env.BENCH_RENDERS ?? 40), large: Number(process.env.BENCH_RENDERS_LARGE ?? 12) };

/** A 1200x800 "photo": overlapping translucent discs on a gradient, so it compresses like a picture, not a flat fill. */
function photoJpeg(): Buffer {
  const canvas = createCanvas(1200, 800);
  const ctx = canvas.getContext('2d');
  const sky = ctx.createLinearGradient(0, 0, 1200, 800);
  sky.addColorStop(0, '#0EA5E9');
  sky.addColorStop(1, '#F97316');
  ctx.fillStyle = sky;
  ctx.fillRect(0, 0, 1200, 800);
  for (let i = 0; i < 120; i++) {
    ctx.fillStyle = `hsla(${(i * 47) % 360}, 70%, 55%, 0.35)`;
    ctx.beginPath();
    ctx.arc((i * 193) % 1200, (i * 311) % 800, 20 + ((i * 17) % 140), 0, Math.PI * 2);
    ctx.fill();
  }
  return canvas.encodeSync('jpeg', 85);
}

const LOGO =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 120 40"><rect width="120" height="40" rx="8" fill="#111827"/>' +
  '<circle cx="20" cy="20" r="12" fill="#F59E0B"/><path d="M40 12h70v6H40zM40 24h50v4H40z" fill="#FFFFFF"/></svg>';

export async function serveMedia(): Promise<{ origin: string; close(): Promise<void> }> {
  const files: Record<string, [string, Buffer]> = {
    '/photo.jpg': ['image/jpeg', photoJpeg()],
    '/logo.svg': ['image/svg+xml', Buffer.from(LOGO)],
  };
  const server = http.createServer((req, res) => {
    const file = files[req.url ?? ''];
    if (!file) res.writeHead(404).end();
    else res.writeHead(200, { 'content-type': file[0], 'content-length': file[1].length }).end(file[1]);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** The banner at `width` x `height`, laid out in proportions of the size (k = width / 300). */
function banner(origin: string, width: number, height: number): DesignDocument {
  const k = width / 300;
  const px = (v: number) => Math.round(v * k);
  const photoHeight = Math.round(height * 0.56);
  return readDocument({
    name: `Bench ${width}x${height}`,
    sizes: [
      {
        name: 'Banner',
        width,
        height,
        backgroundColor: '#0F172A',
        slides: [
          {
            elements: [
              { name: 'photo', type: 'image', x: 0, y: 0, width, height: photoHeight, src: `${origin}/photo.jpg` },
              {
                name: 'shade',
                type: 'shape',
                x: 0,
                y: photoHeight - px(40),
                width,
                height: px(40),
                fill: 'linear-gradient(180deg, rgba(15, 23, 42, 0) 0%, #0F172A 100%)',
              },
              {
                name: 'logo',
                type: 'svg',
                x: px(12),
                y: px(12),
                width: px(72),
                height: px(24),
                src: `${origin}/logo.svg`,
              },
              {
                name: 'logo-alt',
                type: 'svg',
                x: width - px(84),
                y: px(12),
                width: px(72),
                height: px(24),
                src: `${origin}/logo.svg`,
                colors: ['#FFFFFF', '#DC2626', '#111827'],
              },
              {
                name: 'badge',
                type: 'shape',
                shape: 'ellipse',
                x: width - px(64),
                y: photoHeight - px(56),
                width: px(52),
                height: px(52),
                fill: '#DC2626',
                stroke: { color: '#FFFFFF', width: px(2) },
                rotation: -12,
              },
              {
                name: 'headline',
                type: 'text',
                x: px(16),
                y: photoHeight + px(8),
                width: width - px(32),
                height: px(30),
                text: 'Spring sale: 50% off',
                fontFamily: 'Inter',
                fontVariant: '700',
                fontSize: px(20),
                color: '#FFFFFF',
              },
              {
                name: 'body',
                type: 'text',
                x: px(16),
                y: photoHeight + px(38),
                width: width - px(32),
                height: px(28),
                text: 'Fresh styles for the new season, delivered free to your door this week only.',
                fontFamily: 'Inter',
                fontVariant: '400',
                fontSize: px(10),
                color: '#CBD5E1',
              },
              {
                name: 'cta',
                type: 'button',
                x: px(16),
                y: height - px(38),
                width: px(120),
                height: px(28),
                label: 'Shop now',
                fill: 'linear-gradient(90deg, #F59E0B 0%, #EF4444 100%)',
                color: '#111827',
                fontFamily: 'Inter',
                fontVariant: '600',
                fontSize: px(13),
                cornerRadius: px(6),
              },
              {
                name: 'rule',
                type: 'shape',
                shape: 'line',
                x: px(150),
                y: height - px(24),
                width: px(134),
                height: 1,
                fill: '#334155',
              },
            ],
          },
        ],
      },
    ],
  });
}

function stats(samples: number[]): { median: number; p95: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
  return { median: at(0.5), p95: at(0.95) };
}

async function timed<T>(runs: number, once: () => Promise<T>): Promise<{ samples: number[]; last: T }> {
  let last = await once();
  for (let i = 0; i < 2; i++) last = await once();
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    last = await once();
    samples.push(performance.now() - start);
  }
  return { samples, last };
}

async function pdfRenderer(): Promise<PdfRenderer | null> {
  try {
    const module = (await import('../src/formats/pdf/pdf.js')) as { renderPdf?: PdfRenderer };
    return module.renderPdf ?? null;
  } catch {
    return null;
  }
}

export async function benchRender() {
  const media = await serveMedia();
  const fetcher = createAssetFetcher({ allowPrivateUrls: true, probe: null });
  const renderPdf = await pdfRenderer();
  const formats: Format[] = renderPdf ? ['png', 'jpg', 'webp', 'pdf'] : ['png', 'jpg', 'webp'];
  const sizes = [
    { label: '300x250', doc: banner(media.origin, 300, 250), runs: RUNS.small },
    { label: '1080x1920', doc: banner(media.origin, 1080, 1920), runs: RUNS.large },
  ];
  try {
    const perRender: Array<Record<string, string | number>> = [];
    for (const { label, doc, runs } of sizes) {
      const draw = await timed(runs, async () => {
        const frame = await renderFrame(doc, 0, 0, { fetcher });
        frame.release();
      });
      perRender.push({ size: label, format: 'draw only (recorded)', ...msOf(draw.samples), kB: '—' });
      for (const format of formats) {
        const run =
          format === 'pdf'
            ? () => (renderPdf as PdfRenderer)(doc, 0, { fetcher })
            : () => renderImage(doc, 0, 0, { format, fetcher, quality: 90 });
        const { samples, last } = await timed(runs, run);
        perRender.push({ size: label, format, ...msOf(samples), kB: Number((last.length / 1024).toFixed(1)) });
      }
    }
    printTable(
      `Still render on one thread, warm caches (median and p95 of ${RUNS.small} / ${RUNS.large} renders after 3 warm-ups; jpg/webp q90)`,
      perRender,
    );

    const all = Math.max(1, os.availableParallelism());
    const throughput: Array<Record<string, string | number>> = [];
    const pools = [1, ...(all > 1 ? [all] : [])].map((threads) => ({
      threads,
      pool: createRenderPool({ threads, allowPrivateUrls: true }),
    }));
    try {
      for (const { label, doc, runs } of sizes) {
        for (const format of ['png', 'jpg', 'webp'] as const) {
          const row: Record<string, string | number> = { size: label, format };
          for (const { threads, pool } of pools) {
            const job = { document: doc, sizeIndex: 0, slideIndex: 0, format, settings: { scale: 1, quality: 90 } };
            // Warm every thread (fonts, images, canvases) before timing.
            await Promise.all(Array.from({ length: threads * 2 }, () => pool.render(job)));
            const count = runs * 2;
            const start = performance.now();
            await Promise.all(Array.from({ length: count }, () => pool.render(job)));
            row[`renders/s, ${threads} thread${threads > 1 ? 's' : ''}`] = count / ((performance.now() - start) / 1000);
          }
          throughput.push(row);
        }
      }
    } finally {
      await Promise.all(pools.map(({ pool }) => pool.close()));
    }
    printTable(
      `Still renders through the worker pool (${RUNS.small * 2} / ${RUNS.large * 2} renders queued at once)`,
      throughput,
    );
  } finally {
    await media.close();
  }
}

function msOf(samples: number[]) {
  const { median, p95 } = stats(samples);
  return { 'median ms': median, 'p95 ms': p95 };
}
