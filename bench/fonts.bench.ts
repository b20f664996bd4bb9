// The cost of a brand font (issue 17): a 300x250 PNG with a headline and body text drawn in a bundled family (Inter)
// and in an uploaded one (DejaVu Serif, test/fixtures/fonts). "first" is the first render after an upload on a
// thread: the family is new to the thread, so its file's coverage is read (fontkit) and the file registered with
// Skia; each first render uses a fresh copy under a fresh internal name, as a new upload would. "steady" is every
// later render. Median and p95 ms on this thread, with the load average (figures vary with the machine). Then the cost
// of reading an upload: a static TTF, an OTF and a variable font whose named instances are made static.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readDocument } from '../src/domain/design.schema.js';
import { renderImage } from '../src/formats/pipeline.js';
import { readFontFile } from '../src/render/text/brand-font-file.js';
import { type BrandFamily, useBrandFamilies } from '../src/render/text/brand-fonts.js';
import { printTable } from './table.js';

const RUNS = Number(process.env.BENCH_RENDERS ?? 60);
const FIRSTS = Number(process.env.BENCH_FIRSTS ?? 12);
const FONT = path.join(import.meta.dirname, '../test/fixtures/fonts/DejaVuSerif.ttf');

function design(family: string) {
  const text = (name: string, y: number, size: number, value: string) => ({
    type: 'text',
    name,
    x: 12,
    y,
    width: 276,
    height: size * 2.6,
    text: value,
    fontFamily: family,
    fontVariant: '400',
    fontSize: size,
    color: '#111827',
  });
  return readDocument({
    name: 'Fonts',
    sizes: [
      {
        name: 'Banner',
        width: 300,
        height: 250,
        backgroundColor: '#F8FAFC',
        slides: [
          {
            duration: 3,
            elements: [
              text('headline', 16, 28, 'Spring sale: 30% off everything'),
              text('body', 120, 14, 'Fresh arrivals every week. Free delivery on orders over 50 € until Sunday.'),
            ],
          },
        ],
      },
    ],
  });
}

function stats(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return { median: at(0.5), p95: at(0.95) };
}

async function time(fn: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await fn();
  return performance.now() - started;
}

export async function benchFonts(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'placard-bench-fonts-'));
  try {
    const png = (family: string) => renderImage(design(family), 0, 0, { format: 'png' });
    // Warm-up: Skia's font manager, the bundled family and the pipeline.
    for (let i = 0; i < 3; i++) await png('Inter');

    const bundled: number[] = [];
    for (let i = 0; i < RUNS; i++) bundled.push(await time(() => png('Inter')));

    const firsts: number[] = [];
    let family: BrandFamily | undefined;
    for (let i = 0; i < FIRSTS; i++) {
      const file = path.join(dir, `face-${i}.ttf`);
      fs.copyFileSync(FONT, file);
      family = {
        name: `PlacardBrandBench${i}`,
        displayName: 'DejaVu Serif',
        faces: [{ fontId: i + 1, variant: '400', path: file, embeddable: true, fileName: 'DejaVuSerif.ttf' }],
      };
      const current = family;
      firsts.push(
        await time(async () => {
          useBrandFamilies([current]);
          await png(current.name);
        }),
      );
    }
    const steady: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      steady.push(
        await time(async () => {
          useBrandFamilies([family!]);
          await png(family!.name);
        }),
      );
    }
    const base = stats(bundled).median;
    const row = (what: string, samples: number[]) => ({
      'PNG 300x250, two text elements': what,
      renders: samples.length,
      'median ms': stats(samples).median,
      'p95 ms': stats(samples).p95,
      'vs bundled (median)': `${(((stats(samples).median - base) / base) * 100).toFixed(1)} %`,
    });
    printTable(
      `Brand fonts (load average ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')})`,
      [
        row('bundled family (Inter), steady state', bundled),
        row('brand font, first render after upload (coverage + register)', firsts),
        row('brand font, steady state', steady),
      ],
    );
    // Reading an upload (on a render thread in the app): fontkit's parse and checks, and for a variable font HarfBuzz
    // writing each named instance out as a static font.
    const uploads: Array<[string, string]> = [
      ['TrueType (DejaVu Serif, 5 900 glyphs)', 'DejaVuSerif.ttf'],
      ['OpenType CFF (Lobster Two)', 'LobsterTwo-Regular.otf'],
      ['variable TrueType, 9 named instances (Inter Display, Latin)', 'InterDisplay-Variable.ttf'],
    ];
    const reads = [];
    for (const [what, file] of uploads) {
      const bytes = fs.readFileSync(path.join(import.meta.dirname, '../test/fixtures/fonts', file));
      await readFontFile(bytes, file);
      const samples: number[] = [];
      for (let i = 0; i < 8; i++) samples.push(await time(() => readFontFile(bytes, file)));
      reads.push({ 'font file read at upload': what, reads: samples.length, 'median ms': stats(samples).median });
    }
    printTable(`Reading an uploaded font file (load average ${os.loadavg()[0]!.toFixed(2)})`, reads);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
