// GIF and MP4 as the render threads make them (worker.ts `render`, run here on the test's thread), checked on the
// files: ffprobe for codec, size, rate, duration and frame count; frames decoded by ffmpeg and compared with the PNG
// export of the final state; a video element that plays; an audio element mixed in; RSS while a 60 s story renders.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createCanvas, loadImage } from '@napi-rs/canvas';
import { GifReader } from 'omggif';
import { type DesignDocument, readDocument } from '../../src/domain/design.schema.js';
import { setRenderFetcher } from '../../src/formats/pipeline.js';
import { formatOf } from '../../src/formats/registry.js';
import render, { type RenderJob } from '../../src/formats/worker.js';
import { createAssetFetcher } from '../../src/render/media/assets.js';
import { ffprobePath } from '../../src/render/media/media-probe.js';
import { ffmpegBinary } from '../../src/render/media/video-frame.js';

const ffmpeg = (await ffmpegBinary()) as string;
setRenderFetcher(createAssetFetcher({ allowPrivateUrls: true }));

function run(binary: string, args: string[]): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    execFile(binary, args, { encoding: 'buffer', maxBuffer: 512 * 1024 * 1024 }, (error, stdout, stderr) =>
      error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout),
    );
  });
}

let dir: string;
let media: http.Server;
let origin: string;
before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'placard-motion-'));
  // A 3 s 64x48 clip whose red channel counts its frames (10 fps), and a 1 s 440 Hz tone.
  const clip = "color=c=black:s=64x48:r=10:d=3,format=rgb24,geq=r='N*8':g='100':b='200'";
  await run(ffmpeg, [
    '-v',
    'error',
    '-y',
    '-f',
    'lavfi',
    '-i',
    clip,
    '-c:v',
    'libx264',
    '-crf',
    '5',
    '-pix_fmt',
    'yuv420p',
    path.join(dir, 'clip.mp4'),
  ]);
  await run(ffmpeg, [
    '-v',
    'error',
    '-y',
    '-f',
    'lavfi',
    '-i',
    'sine=frequency=440:duration=1',
    path.join(dir, 'tone.wav'),
  ]);
  media = http.createServer((req, res) => {
    const file = path.join(dir, path.basename(req.url ?? ''));
    if (!fs.existsSync(file)) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': file.endsWith('.wav') ? 'audio/wav' : 'video/mp4' });
    fs.createReadStream(file).pipe(res);
  });
  await new Promise<void>((resolve) => media.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(media.address() as AddressInfo).port}`;
});
after(async () => {
  media.closeAllConnections();
  await new Promise((resolve) => media.close(resolve));
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Two slides (1.5 s + 1 s): a box slides in from the left over the first second, a text fades in on the second. */
function animated(width = 160, height = 90, extra: unknown[] = []): DesignDocument {
  return readDocument({
    name: 'Motion',
    loop: 2,
    sizes: [
      {
        name: 'S',
        width,
        height,
        backgroundColor: '#FFFFFF',
        slides: [
          {
            duration: 1.5,
            elements: [
              {
                name: 'box',
                type: 'shape',
                x: 40,
                y: 20,
                width: 60,
                height: 40,
                fill: '#1D4ED8',
                animations: [
                  { effect: 'slide', direction: 'in', from: 'left', start: 0, duration: 1, easing: 'linear' },
                ],
              },
              ...extra,
            ],
          },
          {
            duration: 1,
            elements: [
              { name: 'bar', type: 'shape', x: 10, y: 10, width: 100, height: 30, fill: '#DC2626' },
              {
                name: 'fade',
                type: 'shape',
                x: 20,
                y: 50,
                width: 80,
                height: 30,
                fill: '#16A34A',
                animations: [{ effect: 'fade', direction: 'in', start: 0, duration: 0.5 }],
              },
            ],
          },
        ],
      },
    ],
  });
}

async function renderTo(job: {
  document: DesignDocument;
  format: RenderJob['format'];
  slideIndex?: number;
  out?: string;
  settings?: Record<string, unknown>;
}): Promise<Buffer> {
  const settings = formatOf(job.format).defaults((job.settings ?? {}) as never);
  const outcome = await render({ sizeIndex: 0, slideIndex: 0, ...job, settings } as RenderJob);
  if (!outcome.ok) throw new Error('code' in outcome ? `${outcome.code}: ${outcome.message}` : 'no document');
  return Buffer.from(outcome.bytes);
}

async function mp4Of(document: DesignDocument, fps?: number): Promise<string> {
  const out = path.join(dir, `${Math.random().toString(36).slice(2)}.mp4`);
  await renderTo({ document, format: 'mp4', settings: { targetFPS: fps }, out });
  return out;
}

// biome-ignore lint/suspicious/noExplicitAny: ffprobe's JSON is read field by field.
async function probe(file: string): Promise<any> {
  const json = await run(ffprobePath(), [
    '-v',
    'error',
    '-count_frames',
    '-show_streams',
    '-show_format',
    '-of',
    'json',
    file,
  ]);
  return JSON.parse(json.toString());
}

/** RGB bytes of the frame `at` seconds into a video (or its last frame with at < 0). */
async function frameOf(file: string, width: number, height: number, at: number): Promise<Uint8Array> {
  const seek = at < 0 ? ['-sseof', '-0.05'] : ['-ss', String(at)];
  const rgb = await run(ffmpeg, [
    '-v',
    'error',
    ...seek,
    '-i',
    file,
    '-frames:v',
    '1',
    '-f',
    'rawvideo',
    '-pix_fmt',
    'rgb24',
    '-',
  ]);
  assert.equal(rgb.length, width * height * 3);
  return rgb;
}

/** RGB of a PNG, JPG or WEBP. */
async function rgbOf(bytes: Buffer): Promise<Uint8Array> {
  const image = await loadImage(bytes);
  const canvas = createCanvas(image.width, image.height);
  canvas.getContext('2d').drawImage(image, 0, 0);
  const rgba = canvas.getContext('2d').getImageData(0, 0, image.width, image.height).data;
  return Uint8Array.from({ length: (rgba.length / 4) * 3 }, (_, i) => rgba[Math.floor(i / 3) * 4 + (i % 3)]);
}

/** Mean absolute difference per channel, 0..255. */
function meanDifference(a: Uint8Array, b: Uint8Array): number {
  assert.equal(a.length, b.length);
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += Math.abs(a[i] - b[i]);
  return sum / a.length;
}

describe('MP4 exports', () => {
  test('H.264 yuv420p of the design size, the requested rate, the slides’ duration and every frame', async () => {
    const file = await mp4Of(animated(), 24);
    const info = await probe(file);
    const video = info.streams.find((s: { codec_type: string }) => s.codec_type === 'video');
    assert.equal(video.codec_name, 'h264');
    assert.equal(video.pix_fmt, 'yuv420p');
    assert.equal(video.width, 160);
    assert.equal(video.height, 90);
    assert.equal(video.r_frame_rate, '24/1');
    assert.equal(Number(video.nb_read_frames), 60, '2.5 s at 24 fps');
    assert.ok(Math.abs(Number(info.format.duration) - 2.5) < 0.05, `duration ${info.format.duration}`);
    assert.equal(info.streams.length, 1, 'no sound track without sound');
  });

  test('the default rate is 30 fps; odd sides are padded to even ones', async () => {
    const video = (await probe(await mp4Of(animated(101, 51)))).streams[0];
    assert.equal(video.r_frame_rate, '30/1');
    assert.equal(video.width, 102);
    assert.equal(video.height, 52);
    assert.equal(Number(video.nb_read_frames), 75);
  });

  test('the last frame equals the PNG of the final state; a frame mid-animation does not', async () => {
    const document = animated();
    const file = await mp4Of(document, 24);
    const png = await rgbOf(await renderTo({ document, format: 'png', slideIndex: 1 }));
    const last = await frameOf(file, 160, 90, -1);
    assert.ok(meanDifference(last, png) < 2, `last frame differs by ${meanDifference(last, png)}`);
    // 0.4 s in: the box is 60% of the way in from the left; the still of slide 1 shows it in place.
    const firstSlide = await rgbOf(await renderTo({ document, format: 'png', slideIndex: 0 }));
    const moving = await frameOf(file, 160, 90, 0.4);
    assert.ok(meanDifference(moving, firstSlide) > 5, `mid-animation differs by ${meanDifference(moving, firstSlide)}`);
    // 1.2 s in: the slide-in ended at 1 s, so the frame is the first slide's final state.
    const settled = await frameOf(file, 160, 90, 1.2);
    assert.ok(meanDifference(settled, firstSlide) < 2, `after the slide-in: ${meanDifference(settled, firstSlide)}`);
  });

  test('a video element plays: its frames change with time inside its box', async () => {
    const document = animated(160, 90, [
      { name: 'clip', type: 'video', x: 0, y: 0, width: 64, height: 48, src: `${origin}/clip.mp4`, fit: 'fill' },
    ]);
    const file = await mp4Of(document, 10);
    const redAt = async (t: number) => (await frameOf(file, 160, 90, t))[(24 * 160 + 32) * 3];
    const early = await redAt(0.2);
    const later = await redAt(1.2);
    // The clip's red counts its frames by 8: about 16 at 0.2 s and 96 at 1.2 s.
    assert.ok(Math.abs(early - 16) <= 12, `red at 0.2 s: ${early}`);
    assert.ok(Math.abs(later - 96) <= 12, `red at 1.2 s: ${later}`);
  });

  test('an audio element is mixed in from its start, and the file keeps the design’s duration', async () => {
    const document = animated(160, 90, [
      { name: 'music', type: 'audio', src: `${origin}/tone.wav`, start: 0.5, volume: 0.8 },
    ]);
    const info = await probe(await mp4Of(document, 10));
    const audio = info.streams.find((s: { codec_type: string }) => s.codec_type === 'audio');
    assert.ok(audio, 'a sound track');
    assert.equal(audio.codec_name, 'aac');
    assert.ok(Math.abs(Number(info.format.duration) - 2.5) < 0.1, `duration ${info.format.duration}`);
  });

  test('memory stays bounded while a 60 s 1080x1920 story renders (every frame distinct)', async () => {
    const document = readDocument({
      name: 'Long story',
      sizes: [
        {
          name: 'Story',
          width: 1080,
          height: 1920,
          backgroundColor: '#0F172A',
          slides: [
            {
              duration: 60,
              elements: [
                {
                  name: 'spinner',
                  type: 'shape',
                  x: 340,
                  y: 760,
                  width: 400,
                  height: 400,
                  fill: 'linear-gradient(90deg, #F59E0B 0%, #EF4444 100%)',
                  animations: [{ effect: 'rotate', direction: 'in', start: 0, duration: 60, easing: 'linear' }],
                },
              ],
            },
          ],
        },
      ],
    });
    const start = process.memoryUsage().rss;
    let peak = start;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 50);
    try {
      // 5 fps keeps the test short: 300 distinct 8 MB frames, 2.4 GB if they were held.
      const info = await probe(await mp4Of(document, 5));
      assert.equal(Number(info.streams[0].nb_read_frames), 300);
    } finally {
      clearInterval(sampler);
    }
    const grewMb = (peak - start) / 1e6;
    assert.ok(grewMb < 600, `RSS grew by ${grewMb.toFixed(0)} MB while rendering`);
  });
});

describe('GIF exports', () => {
  function frames(bytes: Buffer) {
    const reader = new GifReader(bytes);
    const rgba = new Uint8Array(reader.width * reader.height * 4);
    reader.decodeAndBlitFrameRGBA(reader.numFrames() - 1, rgba);
    return { reader, last: rgba };
  }
  const rgb = (rgba: Uint8Array) => rgba.filter((_, i) => i % 4 !== 3);

  test('static is one frame: the final state, equal to the PNG within a small mean difference', async () => {
    const document = animated();
    const { reader, last } = frames(await renderTo({ document, format: 'gif', settings: { gifPreset: 'static' } }));
    assert.equal(reader.numFrames(), 1);
    const png = await rgbOf(await renderTo({ document, format: 'png', slideIndex: 1 }));
    assert.ok(meanDifference(rgb(last), png) < 3, `differs by ${meanDifference(rgb(last), png)}`);
  });

  test('highQuality animates at 20 fps and loops as the document says; optimized is smaller', async () => {
    const document = animated();
    const high = await renderTo({ document, format: 'gif', settings: { gifPreset: 'highQuality' } });
    const { reader, last } = frames(high);
    assert.ok(reader.numFrames() > 10, `${reader.numFrames()} frames`);
    // loop: 2 plays = 1 repeat in the NETSCAPE2.0 block.
    assert.equal(reader.loopCount(), 1);
    let total = 0;
    for (let i = 0; i < reader.numFrames(); i++) total += reader.frameInfo(i).delay;
    assert.ok(Math.abs(total - 250) <= 2, `the frames last ${total} cs`);
    const png = await rgbOf(await renderTo({ document, format: 'png', slideIndex: 1 }));
    assert.ok(meanDifference(rgb(last), png) < 3);
    const optimized = await renderTo({ document, format: 'gif', settings: { gifPreset: 'optimized' } });
    assert.ok(optimized.length < high.length, `optimized ${optimized.length} B, highQuality ${high.length} B`);
  });
});
