// Motion: a 15 s 1080x1920 30 fps MP4 story (its animations last the first 1.2 s of each of three slides, as a
// typical story's do, plus one element that moves for the whole clip) and a 3 s 300x250 GIF in each preset, made
// with the same module the render threads use (formats/animated.ts), on this thread. Peak RSS is this process's,
// sampled every 20 ms; ffmpeg runs in its own process and is not counted.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type DesignDocument, readDocument } from '../src/domain/design.schema.js';
import { renderGif, renderMp4 } from '../src/formats/animated.js';
import type { GifPreset } from '../src/formats/gif/gif.js';
import { createAssetFetcher } from '../src/render/media/assets.js';
import { printTable } from './table.js';

const fetcher = createAssetFetcher({ allowPrivateUrls: false });

function slide(index: number, width: number, height: number, seconds: number, fontSize: number) {
  const enter = { start: 0, duration: 1.2, easing: 'easeOut' };
  return {
    duration: seconds,
    elements: [
      {
        name: `panel${index}`,
        type: 'shape',
        x: 0,
        y: 0,
        width,
        height: height * 0.6,
        fill: 'linear-gradient(160deg, #1E3A8A 0%, #9333EA 100%)',
        animations: [{ effect: 'fade', direction: 'in', ...enter }],
      },
      {
        name: `headline${index}`,
        type: 'text',
        x: width * 0.08,
        y: height * 0.62,
        width: width * 0.84,
        height: fontSize * 2.6,
        text: ['Spring sale', 'New colours every week', 'Shop the collection'][index % 3],
        fontFamily: 'Inter',
        fontVariant: '700',
        fontSize,
        color: '#FFFFFF',
        align: 'center',
        animations: [{ effect: 'slide', direction: 'in', from: 'left', ...enter }],
      },
      {
        name: `cta${index}`,
        type: 'button',
        x: width * 0.3,
        y: height * 0.85,
        width: width * 0.4,
        height: fontSize * 1.6,
        label: 'Shop now',
        fill: '#F59E0B',
        color: '#111827',
        fontFamily: 'Inter',
        fontVariant: '600',
        fontSize: fontSize * 0.6,
        cornerRadius: fontSize * 0.8,
        animations: [{ effect: 'zoom', direction: 'in', ...enter }],
      },
      {
        name: `badge${index}`,
        type: 'shape',
        shape: 'ellipse',
        x: width * 0.75,
        y: height * 0.05,
        width: width * 0.18,
        height: width * 0.18,
        fill: '#F59E0B',
        animations: [{ effect: 'rotate', direction: 'in', start: 0, duration: seconds, easing: 'linear' }],
      },
    ],
  };
}

function design(width: number, height: number, slides: number, seconds: number, fontSize: number): DesignDocument {
  return readDocument({
    name: 'Bench motion',
    loop: 'infinite',
    sizes: [
      {
        name: `${width}x${height}`,
        width,
        height,
        backgroundColor: '#0F172A',
        slides: Array.from({ length: slides }, (_, i) => slide(i, width, height, seconds, fontSize)),
      },
    ],
  });
}

async function measure(run: () => Promise<number>) {
  const start = performance.now();
  let peak = process.memoryUsage().rss;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 20);
  try {
    const bytes = await run();
    return { ms: performance.now() - start, bytes, peakMb: peak / 1e6 };
  } finally {
    clearInterval(sampler);
  }
}

export async function benchMotion(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'placard-bench-motion-'));
  const rows: Array<Record<string, string | number>> = [];
  try {
    // Warm: fonts registered, encoders loaded, ffmpeg found.
    await renderGif(design(300, 250, 1, 1, 22), 0, 'static', { fetcher });

    const story = design(1080, 1920, 3, 5, 72);
    const out = path.join(dir, 'story.mp4');
    const mp4 = await measure(async () => {
      await renderMp4(story, 0, out, { fetcher, fps: 30 });
      return fs.statSync(out).size;
    });
    rows.push({
      output: 'MP4 1080x1920, 15 s at 30 fps (450 frames)',
      'wall s': mp4.ms / 1000,
      'frames/s': 450 / (mp4.ms / 1000),
      'x real time': 15 / (mp4.ms / 1000),
      'output kB': Math.round(mp4.bytes / 1024),
      'peak RSS MB': Math.round(mp4.peakMb),
    });

    const banner = design(300, 250, 1, 3, 22);
    for (const preset of ['highQuality', 'optimized', 'static'] as GifPreset[]) {
      const frames = preset === 'static' ? 1 : preset === 'highQuality' ? 60 : 30;
      const gif = await measure(async () => (await renderGif(banner, 0, preset, { fetcher })).length);
      rows.push({
        output: `GIF 300x250, 3 s, ${preset} (${frames} frame${frames === 1 ? '' : 's'})`,
        'wall s': gif.ms / 1000,
        'frames/s': frames / (gif.ms / 1000),
        'x real time': preset === 'static' ? '—' : 3 / (gif.ms / 1000),
        'output kB': Math.round(gif.bytes / 1024),
        'peak RSS MB': Math.round(gif.peakMb),
      });
    }
    printTable('Motion exports (one render, on this thread; ffmpeg/x264 in its own process)', rows);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
