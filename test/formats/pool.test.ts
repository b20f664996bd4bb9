// The worker-thread pool: renders run in worker threads (not on this one), give the same pixels as a render here, keep
// AppError codes across the thread boundary, and run side by side.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { readDocument } from '../../src/domain/design.schema.js';
import { AppError } from '../../src/errors.js';
import { renderImage } from '../../src/formats/pipeline.js';
import {
  BlobWriteError,
  createRenderPool,
  findingsOf,
  type RenderPool,
  RenderTimeoutError,
  workerFile,
} from '../../src/formats/pool.js';
import { canvasPool } from '../../src/render/canvas-pool.js';
import { ffmpegBinary } from '../../src/render/media/video-frame.js';
import { comparePngs } from '../render/golden.js';
import { assertPixel, decodeAny, decodePng } from '../render/pixels.js';
import { photo, QUADRANTS, type RenderMedia, startRenderMedia } from '../render/render-media.js';
import { FIXTURES } from './preflight/fixtures.js';

let media: RenderMedia;
let pool: RenderPool;
before(async () => {
  media = await startRenderMedia();
  pool = createRenderPool({ threads: 2, allowPrivateUrls: true });
});
after(async () => {
  await pool.close();
  await media.close();
});

describe('createRenderPool', () => {
  test('runs the worker with the extension of the running code (worker.ts under tsx)', () => {
    assert.match(workerFile(), /src[/\\]formats[/\\]worker\.ts$/);
    assert.equal(pool.threads, 2);
  });

  test('a render in a worker thread gives the same pixels as one on this thread, and uses none of its canvases', async () => {
    const doc = media.fixture('image-fit');
    const created = canvasPool.created();
    const pooled = Buffer.from(
      await pool.render({ document: doc, sizeIndex: 0, slideIndex: 0, format: 'png', settings: { scale: 1 } }),
    );
    assert.equal(canvasPool.created(), created, 'the main thread drew nothing');
    const local = await renderImage(doc, 0, 0, { format: 'png', fetcher: media.fetcher });
    assert.equal(comparePngs(pooled, local).differing, 0);
    assertPixel(decodePng(pooled), 110, 10, [...QUADRANTS.topLeft, 255]);
  });

  test('a keyed document is sent to a thread once: later jobs of the key render the copy the thread keeps', async () => {
    const single = createRenderPool({ threads: 1, allowPrivateUrls: true });
    try {
      const solid = (colour: string) =>
        readDocument({
          name: 'solid',
          sizes: [
            { name: 's', width: 20, height: 20, backgroundColor: colour, slides: [{ duration: 5, elements: [] }] },
          ],
        });
      const job = (document: ReturnType<typeof solid>, documentKey: string) =>
        ({ document, documentKey, sizeIndex: 0, slideIndex: 0, format: 'png', settings: { scale: 1 } }) as const;
      const key = `red-${Math.random()}`;
      // The thread does not keep the key yet: it asks, and gets the document whole.
      assertPixel(decodePng(Buffer.from(await single.render(job(solid('#FF0000'), key)))), 10, 10, [255, 0, 0, 255]);
      // Same key, other content (a broken promise of the caller's): the thread's copy shows it was not sent again.
      assertPixel(decodePng(Buffer.from(await single.render(job(solid('#0000FF'), key)))), 10, 10, [255, 0, 0, 255]);
      // Another key is sent, and drawn.
      const blue = `blue-${Math.random()}`;
      assertPixel(decodePng(Buffer.from(await single.render(job(solid('#0000FF'), blue)))), 10, 10, [0, 0, 255, 255]);
    } finally {
      await single.close();
    }
  });

  test("a kept document's preflight findings are kept per scale and size hash, its sources' failures never", async () => {
    // The thread keeps a document's findings for the next export of the key (issue 21, stop 29); what they depend on
    // besides the document (the output scale, the size hash they name) is part of what they are kept by, and a source
    // that failed is asked again.
    const single = createRenderPool({ threads: 1, allowPrivateUrls: true });
    let served = false;
    const server = http.createServer((_req, res) => {
      if (!served) {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'image/png' }).end(photo());
    });
    server.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const imageUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/late.png`;
    try {
      // Text that autoFit shrinks under the readable floor at scale 1 (9 output px), not at scale 2.
      const document = readDocument(FIXTURES.TEXT_SHRUNK.trigger);
      const key = `small-${Math.random()}`;
      const job = (scale: number, sizeHash: string) =>
        ({
          document,
          documentKey: key,
          sizeIndex: 0,
          slideIndex: 0,
          format: 'png',
          settings: { scale },
          preflight: { mode: 'warn', sizeHash },
        }) as const;
      const codes = async (scale: number, sizeHash: string) =>
        (await single.renderFiles(job(scale, sizeHash))).findings?.map((f) => `${f.code}@${f.sizeHash}`) ?? [];
      const atOne = await codes(1, 'aaaaaaa');
      assert.ok(atOne.includes('TEXT_SHRUNK@aaaaaaa'), `TEXT_SHRUNK at scale 1: ${atOne.join(', ') || 'none'}`);
      assert.deepEqual(await codes(1, 'aaaaaaa'), atOne, 'the same export again finds the same');
      assert.deepEqual(
        (await codes(2, 'aaaaaaa')).filter((c) => c.startsWith('TEXT_SHRUNK')),
        [],
        'at scale 2 the text is readable: the findings of scale 1 were not reused',
      );
      assert.deepEqual(
        await codes(1, 'bbbbbbb'),
        atOne.map((c) => c.replace('@aaaaaaa', '@bbbbbbb')),
        'the findings name the size hash of their own export',
      );

      // A source that failed: its finding is not kept, so the export after the source came back has none.
      const withImage = readDocument({
        ...document,
        sizes: [
          {
            ...document.sizes[0],
            slides: [
              {
                duration: 5,
                elements: [{ name: 'late', type: 'image', x: 0, y: 0, width: 100, height: 100, src: imageUrl }],
              },
            ],
          },
        ],
      });
      const imageJob = {
        document: withImage,
        documentKey: `late-${Math.random()}`,
        sizeIndex: 0,
        slideIndex: 0,
        format: 'png',
        settings: { scale: 1 },
        preflight: { mode: 'warn', sizeHash: 'ccccccc' },
      } as const;
      const first = await single.renderFiles(imageJob).then(
        (files) => files.findings ?? [],
        (error: AppError) => findingsOf(error) ?? [],
      );
      assert.ok(
        first.some((f) => f.code.startsWith('SOURCE_')),
        `the missing image is a finding: ${first.map((f) => f.code).join(', ')}`,
      );
      served = true;
      const second = (await single.renderFiles(imageJob)).findings ?? [];
      assert.deepEqual(
        second.filter((f) => f.code.startsWith('SOURCE_')),
        [],
        'the image came back, and the next export no longer reports it',
      );
    } finally {
      server.close();
      await single.close();
    }
  });

  test('scale, format and quality reach the worker', async () => {
    const doc = media.fixture('shapes');
    const jpg = await pool.render({
      document: doc,
      sizeIndex: 0,
      slideIndex: 0,
      format: 'jpg',
      settings: { scale: 0.5, quality: 80 },
    });
    const pixels = await decodeAny(Buffer.from(jpg));
    assert.deepEqual([pixels.width, pixels.height], [150, 125]);
    assertPixel(pixels, 37, 27, [0x25, 0x63, 0xeb, 255], 8);
  });

  test('with a store target the thread stores the file itself and answers its size; the bytes only when kept', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'placard-pool-store-'));
    try {
      const job = {
        document: media.fixture('shapes'),
        sizeIndex: 0,
        slideIndex: 0,
        format: 'jpg',
        settings: { scale: 1, quality: 80 },
      } as const;
      const target = { root, key: 'exports/e1/c1.jpg', contentType: 'image/jpeg' };
      const stored = await pool.renderFiles(job, { store: target });
      const file = fs.readFileSync(path.join(root, 'exports/e1/c1.jpg'));
      assert.deepEqual(stored.stored, { size: file.length, backup: false });
      assert.equal(stored.bytes.byteLength, 0, 'the bytes stay on the thread');
      // The type the key's extension names is kept by no .meta file (local-disk.test.ts reads it back).
      assert.equal(fs.existsSync(path.join(root, '.meta')), false);
      const pixels = await decodeAny(file);
      assertPixel(pixels, 75, 55, [0x25, 0x63, 0xeb, 255], 8);
      const kept = await pool.renderFiles(job, { store: { ...target, key: 'exports/e1/c2.jpg', keepBytes: true } });
      assert.deepEqual(Buffer.from(kept.bytes), fs.readFileSync(path.join(root, 'exports/e1/c2.jpg')));
      // A root that is a file: the render succeeded, storing failed, and the error says so.
      const notADir = path.join(root, 'plain-file');
      fs.writeFileSync(notADir, 'x');
      await assert.rejects(pool.renderFiles(job, { store: { ...target, root: notADir } }), BlobWriteError);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  test('SOURCE_REJECTED raised in a worker arrives as an AppError with its code and message', async () => {
    const url = `${media.origin}/absent.jpg`;
    const doc = readDocument({
      name: 'Broken',
      sizes: [
        {
          name: 'S',
          width: 50,
          height: 50,
          slides: [{ elements: [{ name: 'p', type: 'image', x: 0, y: 0, width: 50, height: 50, src: url }] }],
        },
      ],
    });
    await assert.rejects(
      pool.render({ document: doc, sizeIndex: 0, slideIndex: 0, format: 'png', settings: { scale: 1 } }),
      (error: unknown) =>
        error instanceof AppError &&
        error.code === 'SOURCE_REJECTED' &&
        error.status === 422 &&
        error.message.includes(url),
    );
  });

  test('many renders at once all complete, each with its own picture', async () => {
    const colours = ['#FF0000', '#00FF00', '#0000FF', '#FFFF00', '#00FFFF', '#FF00FF'];
    const results = await Promise.all(
      colours.map((backgroundColor) =>
        pool.render({
          document: readDocument({
            name: 'Colour',
            sizes: [{ name: 'S', width: 64, height: 64, backgroundColor, slides: [{ elements: [] }] }],
          }),
          sizeIndex: 0,
          slideIndex: 0,
          format: 'png',
          settings: { scale: 1 },
        }),
      ),
    );
    results.forEach((bytes, i) => {
      const hex = colours[i].slice(1);
      const rgb = [0, 2, 4].map((o) => Number.parseInt(hex.slice(o, o + 2), 16));
      assertPixel(decodePng(Buffer.from(bytes)), 32, 32, [...rgb, 255]);
    });
  });

  test('an aborted render stops with an AbortError, and the pool renders on afterwards', async () => {
    const doc = readDocument({
      name: 'Big',
      sizes: [
        {
          name: 'Story',
          width: 1080,
          height: 1920,
          backgroundColor: '#123456',
          slides: [{ duration: 1, elements: [] }],
        },
      ],
    });
    await assert.rejects(
      pool.render(
        { document: doc, sizeIndex: 0, slideIndex: 0, format: 'png', settings: { scale: 8 } },
        { signal: AbortSignal.timeout(30) },
      ),
      (error: Error) => error.name === 'AbortError',
    );
    const after = await pool.render({
      document: doc,
      sizeIndex: 0,
      slideIndex: 0,
      format: 'jpg',
      settings: { scale: 0.1, quality: 90 },
    });
    assert.equal((await decodeAny(Buffer.from(after))).width, 108);
  });

  test('a PDF renders in a worker thread too', async () => {
    const doc = readDocument({
      name: 'Pages',
      sizes: [
        {
          name: 'Square',
          width: 100,
          height: 100,
          slides: [
            { duration: 1, elements: [] },
            { duration: 1, elements: [] },
          ],
        },
      ],
    });
    const bytes = Buffer.from(
      await pool.render({
        document: doc,
        sizeIndex: 0,
        slideIndex: 0,
        format: 'pdf',
        settings: { pdfPreset: 'PDF_STANDARD', slide: [1] },
      }),
    );
    assert.equal(bytes.subarray(0, 5).toString(), '%PDF-');
    assert.match(bytes.toString('latin1'), /\/Count 1\b/);
  });
});

describe('render budgets count the render alone', () => {
  // One thread, and an image whose server answers only when the test says so: the first render holds the thread
  // for as long as the test wants, without burning the shared machine's CPU.
  let single: RenderPool;
  let server: http.Server;
  let origin: string;
  const answer: (() => void)[] = [];
  before(async () => {
    single = createRenderPool({ threads: 1, allowPrivateUrls: true });
    server = http.createServer((_req, res) => {
      answer.push(() => res.writeHead(200, { 'content-type': 'image/png' }).end(photo()));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    for (const release of answer) release();
    await single.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const slow = (name: string) =>
    readDocument({
      name,
      sizes: [
        {
          name: 'S',
          width: 40,
          height: 40,
          slides: [
            {
              elements: [{ name: 'p', type: 'image', x: 0, y: 0, width: 40, height: 40, src: `${origin}/${name}.png` }],
            },
          ],
        },
      ],
    });
  const small = readDocument({
    name: 'Small',
    sizes: [{ name: 'S', width: 300, height: 250, backgroundColor: '#FF0000', slides: [{ elements: [] }] }],
  });

  test('a render that waits in line longer than its budget is not timed out for the wait, and starts after it', async () => {
    const first = single.render({
      document: slow('held'),
      sizeIndex: 0,
      slideIndex: 0,
      format: 'png',
      settings: { scale: 1 },
    });
    // Queued behind `first` with a budget far shorter than the wait.
    let starts = 0;
    const queued = single.render(
      { document: small, sizeIndex: 0, slideIndex: 0, format: 'jpg', settings: { scale: 1, quality: 90 } },
      {
        budgetMs: 5_000,
        onStart: () => {
          starts += 1;
        },
      },
    );
    while (answer.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(single.queued(), 1, 'the small render waits for the one thread');
    await new Promise((resolve) => setTimeout(resolve, 6_000)); // longer than its budget, in line
    assert.equal(starts, 0, 'a render waiting in line has not started');
    for (const release of answer.splice(0)) release();
    await first;
    const pixels = await decodeAny(Buffer.from(await queued));
    assert.equal(starts, 1, 'onStart was called once, when the thread took the render');
    assertPixel(pixels, 150, 125, [255, 0, 0, 255], 8);
  });

  test('a render that runs past its budget rejects with RenderTimeoutError and frees its thread', async () => {
    await assert.rejects(
      single.render(
        { document: slow('stuck'), sizeIndex: 0, slideIndex: 0, format: 'png', settings: { scale: 1 } },
        { budgetMs: 300 },
      ),
      (error: unknown) => error instanceof RenderTimeoutError && error.budgetMs === 300,
    );
    const pixels = await decodeAny(
      Buffer.from(
        await single.render({ document: small, sizeIndex: 0, slideIndex: 0, format: 'png', settings: { scale: 1 } }),
      ),
    );
    assert.equal(pixels.width, 300);
  });
});

/** This process's child processes named ffmpeg, with their state (R, S, Z for a zombie…), from /proc. */
function ffmpegChildren(): { pid: number; state: string }[] {
  const found: { pid: number; state: string }[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    // pid (comm) state ppid …: comm may hold spaces, so split after its closing parenthesis.
    const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(ppid) === process.pid && comm.includes('ffmpeg')) found.push({ pid: Number(entry), state });
  }
  return found;
}

describe('a video past its budget leaves no ffmpeg behind (issue 14)', async () => {
  const ffmpeg = await ffmpegBinary();
  const skip = process.platform !== 'linux' ? 'reads /proc' : false;

  test('no ffmpeg process, running or zombie, is left after a timed-out MP4', { skip }, async () => {
    assert.ok(ffmpeg, 'no ffmpeg: npm install @ffmpeg-installer/ffmpeg, or apt-get install ffmpeg');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'placard-pool-mp4-'));
    const video = createRenderPool({ threads: 1, allowPrivateUrls: true });
    try {
      // A minute of 1080x1920 at 60 fps with moving shapes: minutes of encoding, far past a 6 s budget.
      const document = readDocument({
        name: 'Long video',
        sizes: [
          {
            name: 'Story',
            width: 1080,
            height: 1920,
            backgroundColor: '#102030',
            slides: [
              {
                duration: 60,
                elements: Array.from({ length: 12 }, (_, i) => ({
                  name: `disc${i}`,
                  type: 'shape',
                  shape: 'ellipse',
                  x: 40 * i,
                  y: 90 * i,
                  width: 300,
                  height: 300,
                  fill: '#F0A030',
                  animations: [{ effect: 'slide', from: 'left', duration: 60 }],
                })),
              },
            ],
          },
        ],
      });
      const out = path.join(dir, 'long.mp4');
      // On a loaded machine the thread may still be drawing its first frames when a short budget ends, before any
      // ffmpeg started; then the render is tried again with twice the budget (the video lasts minutes either way).
      let sawFfmpeg = false;
      for (let budgetMs = 6_000; !sawFfmpeg && budgetMs <= 48_000; budgetMs *= 2) {
        let settled = false;
        const render = video.render(
          { document, sizeIndex: 0, slideIndex: 0, format: 'mp4', settings: { targetFPS: 60 }, out },
          { budgetMs },
        );
        render
          .catch(() => {})
          .finally(() => {
            settled = true;
          });
        const watching = (async () => {
          while (!settled && !sawFfmpeg) {
            sawFfmpeg = ffmpegChildren().length > 0;
            await new Promise((resolve) => setTimeout(resolve, 20));
          }
        })();
        await assert.rejects(render, (error: unknown) => error instanceof RenderTimeoutError);
        await watching;
      }
      assert.ok(sawFfmpeg, 'the render started an ffmpeg (else this test shows nothing)');
      // Reaped before the render rejected; a short look again covers a kill signal still being delivered.
      let left = ffmpegChildren();
      for (let i = 0; i < 50 && left.length > 0; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        left = ffmpegChildren();
      }
      assert.deepEqual(left, [], 'ffmpeg children left (state Z is a zombie)');
    } finally {
      await video.close({ force: true });
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
