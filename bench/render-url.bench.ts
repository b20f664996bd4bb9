// Render URLs (`npm run bench -- render-url`): latency of a cache miss and a cache hit for a 300x250 JPG banner and a
// 1200x630 PNG social card, then requests/s at concurrency 16 for misses (every request a variant of its own) and for
// hits (one link), against one `placard serve` (dist/, SQLite, local disk, no rate limit, render threads = cores).
// Links are signed here as docs/render-urls.md says; latency is measured by the client over keep-alive HTTP.
import { createHmac } from 'node:crypto';
import os from 'node:os';
import autocannon from 'autocannon';
import { startService } from './service.js';
import { printTable } from './table.js';

const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 200);
const DURATION_S = Number(process.env.BENCH_DURATION ?? 5);
const CONCURRENCY = 16;

// biome-ignore lint/suspicious/noExplicitAny: API answers are read field by field.
type Json = any;

const enc = (s: string) =>
  encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

function sign(secret: string, path: string, params: Record<string, string>): string {
  const query = Object.entries(params)
    .map(([k, v]) => `${enc(k)}=${enc(v)}`)
    .sort()
    .join('&');
  const s = createHmac('sha256', secret).update(`${path}?${query}`).digest('hex');
  return `${path}?${query ? `${query}&` : ''}s=${s}`;
}

const text = (name: string, box: object, size: number, value: string, color = '#FFFFFF') => ({
  name,
  type: 'text',
  ...box,
  text: value,
  fontFamily: 'Inter',
  fontVariant: '700',
  fontSize: size,
  color,
});

function banner() {
  return {
    name: 'Banner',
    sizes: [
      {
        name: 'Medium Rectangle',
        width: 300,
        height: 250,
        backgroundColor: '#0F172A',
        slides: [
          {
            duration: 5,
            elements: [
              { name: 'panel', type: 'shape', shape: 'rect', x: 0, y: 120, width: 300, height: 130, fill: '#1E293B' },
              text('headline', { x: 16, y: 20, width: 268, height: 60 }, 24, 'Spring sale'),
              text('body', { x: 16, y: 130, width: 268, height: 40 }, 14, 'Everything must go, this week only'),
              {
                name: 'cta',
                type: 'button',
                x: 16,
                y: 196,
                width: 140,
                height: 36,
                label: 'Shop now',
                fill: '#F59E0B',
                color: '#111827',
                fontFamily: 'Inter',
                fontVariant: '600',
                fontSize: 14,
                cornerRadius: 6,
              },
            ],
          },
        ],
      },
    ],
  };
}

function socialCard() {
  return {
    name: 'Social card',
    sizes: [
      {
        name: 'Open Graph',
        width: 1200,
        height: 630,
        backgroundColor: '#FFFFFF',
        slides: [
          {
            duration: 5,
            elements: [
              { name: 'band', type: 'shape', shape: 'rect', x: 0, y: 0, width: 1200, height: 140, fill: '#4F46E5' },
              text(
                'title',
                { x: 60, y: 200, width: 1080, height: 220 },
                72,
                'How we render a card in milliseconds',
                '#0F172A',
              ),
              text('author', { x: 60, y: 480, width: 800, height: 60 }, 32, 'Ada Lovelace', '#475569'),
            ],
          },
        ],
      },
    ],
  };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function timed(url: string): Promise<number> {
  const started = performance.now();
  const res = await fetch(url);
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`${url}: ${res.status} ${res.headers.get('x-render-cache')}`);
  return performance.now() - started;
}

export async function benchRenderUrl() {
  const service = await startService();
  try {
    const token = await service.token();
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const api = async (method: string, path: string, body?: unknown): Promise<Json> => {
      const res = await fetch(`${service.url}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
      return ((await res.json()) as Json).response;
    };
    const projectId = (await api('GET', '/v1/projects')).nodes[0].id;
    const bannerHash = (await api('POST', '/v1/templates/import', { projectId, name: 'Banner', document: banner() }))
      .template.id;
    const cardHash = (await api('POST', '/v1/templates/import', { projectId, name: 'Card', document: socialCard() }))
      .template.id;
    const { secret } = await api('GET', '/v1/renderUrls/secret');
    const cases = [
      { label: '300x250 JPG', path: `/r/${bannerHash}.jpg`, element: 'headline' },
      { label: '1200x630 PNG', path: `/r/${cardHash}.png`, element: 'title' },
    ];
    let variant = 0;
    const fresh = (c: (typeof cases)[number]) =>
      `${service.url}${sign(secret, c.path, { [c.element]: `Hello reader ${++variant}` })}`;

    const latency: Array<Record<string, string | number>> = [];
    for (const c of cases) {
      // Warm the render threads (fonts, canvases) before measuring.
      for (let i = 0; i < 10; i++) await timed(fresh(c));
      const misses: number[] = [];
      for (let i = 0; i < SAMPLES; i++) misses.push(await timed(fresh(c)));
      const link = fresh(c);
      await timed(link);
      const hits: number[] = [];
      for (let i = 0; i < SAMPLES; i++) hits.push(await timed(link));
      misses.sort((a, b) => a - b);
      hits.sort((a, b) => a - b);
      latency.push({
        variant: c.label,
        'miss p50 ms': percentile(misses, 50),
        'miss p95 ms': percentile(misses, 95),
        'hit p50 ms': percentile(hits, 50),
        'hit p95 ms': percentile(hits, 95),
      });
    }
    printTable(
      `Render URL latency (${SAMPLES} sequential requests each, keep-alive; load ${os.loadavg()[0].toFixed(2)}, ${os.cpus().length} cores)`,
      latency,
    );

    const throughput: Array<Record<string, string | number>> = [];
    for (const c of cases) {
      const link = fresh(c);
      await timed(link);
      const hits = await autocannon({
        url: `${service.url}${link.slice(service.url.length)}`,
        connections: CONCURRENCY,
        duration: DURATION_S,
      });
      const misses = await autocannon({
        url: service.url,
        connections: CONCURRENCY,
        duration: DURATION_S,
        requests: [
          {
            method: 'GET',
            setupRequest: (request) => ({ ...request, path: fresh(c).slice(service.url.length) }),
          },
        ],
      });
      for (const [kind, result] of [
        ['miss (distinct variants)', misses],
        ['hit (one link)', hits],
      ] as const) {
        throughput.push({
          variant: c.label,
          kind,
          'req/s': result.requests.average,
          'p50 ms': result.latency.p50,
          'p99 ms': result.latency.p99,
          'non-2xx': result.non2xx,
          errors: result.errors,
        });
      }
    }
    printTable(
      `Render URL throughput (autocannon, ${CONCURRENCY} connections, ${DURATION_S} s each; load ${os.loadavg()[0].toFixed(2)})`,
      throughput,
    );
  } finally {
    await service.stop();
  }
}
