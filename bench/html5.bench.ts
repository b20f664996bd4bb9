// HTML5 packages per ad network: a simple 300x250 banner (photo, SVG logo, a headline and a button in one web font,
// Inter) and a 4-size set of it (300x250, 728x90, 160x600, 320x50), packaged on this thread with the module the render
// threads use (formats/html5/package.ts): median wall time, zip bytes, files, and the validator's advice.
import { type DesignDocument, readDocument } from '../src/domain/design.schema.js';
import { AD_NETWORKS } from '../src/formats/html5/networks.js';
import { packageHtml5 } from '../src/formats/html5/package.js';
import { createAssetFetcher } from '../src/render/media/assets.js';
import { serveMedia } from './render.bench.js';
import { printTable } from './table.js';

const RUNS = Number(process.env.BENCH_HTML5_RUNS ?? 5);
const SET_SIZES: [number, number][] = [
  [300, 250],
  [728, 90],
  [160, 600],
  [320, 50],
];

function size(origin: string, width: number, height: number) {
  const short = Math.min(width, height);
  const font = Math.max(10, Math.round(short / 12));
  const wide = width > height * 2;
  return {
    name: `${width}x${height}`,
    width,
    height,
    backgroundColor: '#0F172A',
    slides: [
      {
        duration: 6,
        elements: [
          {
            name: 'photo',
            type: 'image',
            x: 0,
            y: 0,
            width: wide ? Math.round(width * 0.3) : width,
            height: wide ? height : Math.round(height * 0.5),
            src: `${origin}/photo.jpg`,
            fit: 'cover',
          },
          { name: 'logo', type: 'svg', x: width - 50, y: 6, width: 44, height: 15, src: `${origin}/logo.svg` },
          {
            name: 'headline',
            type: 'text',
            x: wide ? Math.round(width * 0.32) : 10,
            y: wide ? 4 : Math.round(height * 0.52),
            width: wide ? Math.round(width * 0.4) : width - 20,
            height: font * 2.6,
            text: 'Spring sale: 30 % off everything',
            fontFamily: 'Inter',
            fontVariant: '700',
            fontSize: font,
            color: '#FFFFFF',
            animations: [{ effect: 'slide', from: 'left', start: 0.2, duration: 0.6 }],
          },
          {
            name: 'cta',
            type: 'button',
            x: wide ? width - 110 : 10,
            y: height - Math.max(24, font * 2) - 6,
            width: 100,
            height: Math.max(24, font * 2),
            label: 'Shop now',
            fill: '#F59E0B',
            color: '#111827',
            fontFamily: 'Inter',
            fontVariant: '700',
            fontSize: Math.max(10, font * 0.8),
            cornerRadius: 6,
            animations: [{ effect: 'fade', start: 0.8, duration: 0.4 }],
          },
        ],
      },
    ],
  };
}

const design = (origin: string, sizes: [number, number][]): DesignDocument =>
  readDocument({ name: 'Spring sale', loop: 1, sizes: sizes.map(([w, h]) => size(origin, w, h)) });

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

export async function benchHtml5(): Promise<void> {
  const media = await serveMedia();
  const fetcher = createAssetFetcher({ allowPrivateUrls: true });
  const single = design(media.origin, [[300, 250]]);
  const set = design(media.origin, SET_SIZES);
  const rows: Array<Record<string, string | number>> = [];
  try {
    for (const network of AD_NETWORKS.filter((n) => n.html5)) {
      const settings = { networkId: network.id, useAsClickTag: true, clickTagUrl: 'https://example.com/' };
      const times: number[] = [];
      let pkg!: Awaited<ReturnType<typeof packageHtml5>>;
      for (let i = 0; i < RUNS + 1; i++) {
        const started = performance.now();
        pkg = await packageHtml5(single, 0, settings, { fetcher });
        if (i > 0) times.push(performance.now() - started); // the first run warms fonts, caches and HarfBuzz
      }
      const setTimes: number[] = [];
      let setBytes = 0;
      for (let i = 0; i < Math.max(1, Math.ceil(RUNS / 2)); i++) {
        const started = performance.now();
        setBytes = 0;
        for (let s = 0; s < SET_SIZES.length; s++)
          setBytes += (await packageHtml5(set, s, settings, { fetcher })).zip.byteLength;
        setTimes.push(performance.now() - started);
      }
      rows.push({
        network: network.name,
        '300x250 ms': median(times),
        '300x250 zip bytes': pkg.zip.byteLength,
        files: pkg.files.size,
        'fits 150 KB': pkg.zip.byteLength <= 150 * 1024 ? 'yes' : 'no',
        '4-size set ms': median(setTimes),
        '4-size set zip bytes': setBytes,
        advice: pkg.findings.length ? pkg.findings.map((f) => f.rule).join(', ') : '–',
      });
    }
  } finally {
    await media.close();
  }
  printTable(`HTML5 packages per network (median of ${RUNS}; on this thread)`, rows);
}
