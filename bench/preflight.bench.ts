// `npm run bench -- preflight`: preflight per variant against rendering the same variant to PNG, on this thread with
// warm caches (media fetched, fonts registered), for a 10-element 300x250 design and for a set of four IAB sizes. Each
// variant changes the headline's and the button's text (a LABEL change), so every run lays its text out afresh, as a
// new variant does; the render column is the same changes applied and every size drawn and encoded as PNG.
import os from 'node:os';
import { applyChanges, type ElementChangesInput } from '../src/domain/changes.js';
import { type DesignDocument, readDocument } from '../src/domain/design.schema.js';
import { renderImage } from '../src/formats/pipeline.js';
import { preflightVariant } from '../src/formats/preflight/variant.js';
import { createAssetFetcher } from '../src/render/media/assets.js';
import { catalogueFonts } from '../src/render/text/fonts.js';
import { serveMedia } from './render.bench.js';
import { printTable } from './table.js';

const RUNS = Number(process.env.BENCH_PREFLIGHTS ?? 60);
/** Warm-ups before timing: the first variants pay the JIT and the first use of each glyph and font file. */
const WARM_UPS = 20;

function elements(origin: string, width: number, height: number) {
  const k = Math.min(width / 300, height / 250);
  const px = (v: number) => Math.round(v * k);
  const photoHeight = Math.round(height * 0.5);
  return [
    { name: 'photo', type: 'image', x: 0, y: 0, width, height: photoHeight, src: `${origin}/photo.jpg` },
    {
      name: 'shade',
      type: 'shape',
      x: 0,
      y: photoHeight - px(30),
      width,
      height: px(30),
      fill: 'linear-gradient(180deg, rgba(15, 23, 42, 0) 0%, #0F172A 100%)',
    },
    { name: 'logo', type: 'svg', x: px(10), y: px(10), width: px(72), height: px(24), src: `${origin}/logo.svg` },
    {
      name: 'badge',
      type: 'shape',
      shape: 'ellipse',
      x: width - px(60),
      y: px(10),
      width: px(50),
      height: px(50),
      fill: '#DC2626',
    },
    {
      name: 'badge-text',
      type: 'text',
      x: width - px(60),
      y: px(25),
      width: px(50),
      height: px(20),
      text: '-30%',
      fontSize: px(14),
      fontVariant: '700',
      align: 'center',
      color: '#FFFFFF',
    },
    {
      name: 'headline',
      type: 'text',
      x: px(12),
      y: photoHeight + px(6),
      width: width - px(24),
      height: px(40),
      text: 'Spring sale',
      fontSize: px(22),
      fontVariant: '700',
      color: '#FFFFFF',
      autoFit: 'shrink',
      minFontSize: 8,
    },
    {
      name: 'body',
      type: 'text',
      x: px(12),
      y: photoHeight + px(46),
      width: width - px(24),
      height: px(30),
      text: 'Every running shoe, this weekend only.',
      fontSize: px(12),
      color: '#CBD5E1',
      overflow: 'ellipsis',
    },
    {
      name: 'price',
      type: 'text',
      x: px(12),
      y: height - px(34),
      width: px(90),
      height: px(24),
      text: '€59.99',
      fontSize: px(18),
      fontVariant: '700',
      color: '#F59E0B',
    },
    {
      name: 'cta',
      type: 'button',
      x: width - px(122),
      y: height - px(38),
      width: px(110),
      height: px(30),
      label: 'Shop now',
      fill: '#F59E0B',
      color: '#111827',
      fontVariant: '600',
      fontSize: px(13),
      cornerRadius: px(6),
    },
    {
      name: 'legal',
      type: 'text',
      x: px(12),
      y: height - px(10),
      width: width - px(24),
      height: px(9),
      text: 'While stocks last.',
      fontSize: px(7),
      color: '#94A3B8',
    },
  ];
}

export function design(origin: string, sizes: [number, number][]): DesignDocument {
  return readDocument({
    name: 'Bench preflight',
    sizes: sizes.map(([width, height], i) => ({
      hash: `size${i}ab`,
      name: `${width}x${height}`,
      width,
      height,
      backgroundColor: '#0F172A',
      slides: [{ elements: elements(origin, width, height) }],
    })),
  });
}

export function variant(i: number): ElementChangesInput[] {
  return [
    { elementName: 'headline', changes: [{ attribute: 'LABEL', value: `Spring sale ${i}: up to ${i % 70} % off` }] },
    { elementName: 'cta', changes: [{ attribute: 'LABEL', value: i % 2 ? 'Shop now' : `Buy ${i}` }] },
  ];
}

/** Median and fastest of the samples: on a loaded machine the fastest run shows the work, the median the wait too. */
function summary(samples: number[]): { median: number; min: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  return { median: sorted[Math.floor(sorted.length / 2)]!, min: sorted[0]! };
}

async function time(runs: number, run: (i: number) => Promise<unknown>): Promise<{ median: number; min: number }> {
  for (let i = 0; i < WARM_UPS; i++) await run(-1 - i);
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    await run(i);
    samples.push(performance.now() - started);
  }
  return summary(samples);
}

export async function benchPreflight() {
  const media = await serveMedia();
  const fetcher = createAssetFetcher({ allowPrivateUrls: true, probe: null, timeoutMs: 5000 });
  try {
    const rows: Array<Record<string, string | number>> = [];
    const cases: [string, [number, number][]][] = [
      ['300x250, 10 elements', [[300, 250]]],
      [
        'set of 4 (300x250, 728x90, 160x600, 300x600)',
        [
          [300, 250],
          [728, 90],
          [160, 600],
          [300, 600],
        ],
      ],
    ];
    for (const [name, sizes] of cases) {
      const doc = design(media.origin, sizes);
      const preflight = await time(RUNS, (i) =>
        preflightVariant(doc, { elementsChanges: variant(i) }, { fonts: catalogueFonts, fetcher }),
      );
      const render = await time(RUNS, async (i) => {
        // Other variants than preflight's: the layouts preflight cached must not make the renders look cheaper.
        const changed = applyChanges(doc, variant(i + 1_000_000), undefined, catalogueFonts);
        for (let s = 0; s < sizes.length; s++) await renderImage(changed, s, 0, { format: 'png', fetcher });
      });
      rows.push({
        design: name,
        'preflight ms / variant (median, min)': `${preflight.median.toFixed(2)}, ${preflight.min.toFixed(2)}`,
        'preflight ms / size (median, min)': `${(preflight.median / sizes.length).toFixed(2)}, ${(preflight.min / sizes.length).toFixed(2)}`,
        'render PNG ms / variant (median, min)': `${render.median.toFixed(2)}, ${render.min.toFixed(2)}`,
        'render ÷ preflight (median, min)': `${(render.median / preflight.median).toFixed(1)}, ${(render.min / preflight.min).toFixed(1)}`,
      });
    }
    const [one, five, fifteen] = os.loadavg();
    printTable(
      `Preflight per variant against rendering it (${RUNS} variants after ${WARM_UPS} warm-ups, this thread, warm caches; load average ${one.toFixed(2)} ${five.toFixed(2)} ${fifteen.toFixed(2)})`,
      rows,
    );
  } finally {
    await media.close();
  }
}
