// GIF encoding checked by decoding the files with an independent reader (omggif): frame count, delays, loop count,
// dimensions, disposal and transparency of the optimized preset, and pixels close to the frames that went in.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { describe, test } from 'node:test';
import { createCanvas } from '@napi-rs/canvas';
import gifenc from 'gifenc';
import { encodeGif, GIF_MIN_DELAY_CS, type GifFrame, type GifPreset } from '../../../src/formats/gif/gif.js';

interface FrameInfo {
  width: number;
  height: number;
  delay: number;
  disposal: number;
  transparent_index: number | null;
  has_local_palette: boolean;
}
interface GifReader {
  width: number;
  height: number;
  numFrames(): number;
  loopCount(): number | null;
  frameInfo(i: number): FrameInfo;
  decodeAndBlitFrameRGBA(i: number, pixels: Uint8Array): void;
}
const { GifReader } = createRequire(import.meta.url)('omggif') as { GifReader: new (bytes: Uint8Array) => GifReader };

const W = 120;
const H = 90;

/** A banner-like animation: a gradient background, a disc sliding across, a text line. */
function bannerFrames(count: number, width = W, height = H): Uint8Array[] {
  const canvas = createCanvas(width, height);
  const ctx = canvas.getContext('2d');
  const frames: Uint8Array[] = [];
  for (let i = 0; i < count; i++) {
    const gradient = ctx.createLinearGradient(0, 0, width, height);
    gradient.addColorStop(0, '#1E3A8A');
    gradient.addColorStop(1, '#F59E0B');
    ctx.fillStyle = gradient;
    ctx.fillRect(0, 0, width, height);
    ctx.fillStyle = '#EF4444';
    ctx.beginPath();
    ctx.arc(15 + (i * (width - 30)) / Math.max(1, count - 1), height / 2, 12, 0, Math.PI * 2);
    ctx.fill();
    ctx.fillStyle = '#FFFFFF';
    ctx.fillRect(10, 10, 60, 8);
    frames.push(new Uint8Array(canvas.data()));
  }
  return frames;
}

/** Far more colours than a palette holds: red along x, green along y, blue in diagonal waves. */
function richFrame(width = W, height = H, period = 9): Uint8Array {
  const f = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const p = (y * width + x) * 4;
      f[p] = Math.round((x * 255) / width);
      f[p + 1] = Math.round((y * 255) / height);
      f[p + 2] = Math.round(128 + 127 * Math.sin((x + y) / period));
      f[p + 3] = 255;
    }
  }
  return f;
}

function solid(rgb: [number, number, number], width = W, height = H): Uint8Array {
  const f = new Uint8Array(width * height * 4);
  for (let p = 0; p < f.length; p += 4) f.set([...rgb, 255], p);
  return f;
}

/** Every frame as shown on screen: each decoded frame is drawn over the ones before, as a browser does. */
function decode(bytes: Uint8Array): { reader: GifReader; frames: Uint8Array[] } {
  const reader = new GifReader(bytes);
  const screen = new Uint8Array(reader.width * reader.height * 4);
  const frames: Uint8Array[] = [];
  for (let i = 0; i < reader.numFrames(); i++) {
    reader.decodeAndBlitFrameRGBA(i, screen);
    frames.push(screen.slice());
  }
  return { reader, frames };
}

/** Mean absolute difference per RGB channel, 0..255. */
function meanError(a: Uint8Array, b: Uint8Array): number {
  let sum = 0;
  for (let p = 0; p < a.length; p += 4) {
    sum += Math.abs(a[p] - b[p]) + Math.abs(a[p + 1] - b[p + 1]) + Math.abs(a[p + 2] - b[p + 2]);
  }
  return sum / ((a.length / 4) * 3);
}

/** Mean difference of the averages of 4x4 blocks: what an eye sees from a distance, where dithering pays off. */
function blockError(a: Uint8Array, b: Uint8Array, width = W, height = H): number {
  let sum = 0;
  let n = 0;
  for (let y = 0; y + 4 <= height; y += 4) {
    for (let x = 0; x + 4 <= width; x += 4) {
      for (let c = 0; c < 3; c++) {
        let d = 0;
        for (let dy = 0; dy < 4; dy++) for (let dx = 0; dx < 4; dx++) d += a[((y + dy) * width + x + dx) * 4 + c];
        for (let dy = 0; dy < 4; dy++) for (let dx = 0; dx < 4; dx++) d -= b[((y + dy) * width + x + dx) * 4 + c];
        sum += Math.abs(d) / 16;
        n++;
      }
    }
  }
  return sum / n;
}

const every = (frames: Uint8Array[], delayMs: number): GifFrame[] => frames.map((rgba) => ({ rgba, delayMs }));

function encode(frames: GifFrame[] | AsyncIterable<GifFrame>, preset: GifPreset, loop = 0, width = W, height = H) {
  return encodeGif(frames, { width, height, preset, loop });
}

/** Whether the file has a NETSCAPE2.0 looping block, read from the bytes themselves. */
function netscapeLoop(bytes: Uint8Array): number | null {
  const at = Buffer.from(bytes).indexOf('NETSCAPE2.0');
  if (at < 0) return null;
  assert.equal(bytes[at + 11], 3, 'sub-block size');
  assert.equal(bytes[at + 12], 1, 'loop sub-block id');
  return bytes[at + 13] | (bytes[at + 14] << 8);
}

describe('encodeGif highQuality', () => {
  test('has every frame, its delay, the dimensions and a loop forever', async () => {
    const input = bannerFrames(6);
    const gif = await encode(every(input, 100), 'highQuality', 0);
    const { reader, frames } = decode(gif);
    assert.equal(gif.subarray(0, 6).toString('latin1'), 'GIF89a');
    assert.deepEqual([reader.width, reader.height], [W, H]);
    assert.equal(reader.numFrames(), 6);
    for (let i = 0; i < 6; i++) assert.equal(reader.frameInfo(i).delay, 10, `frame ${i} delay in centiseconds`);
    assert.equal(reader.loopCount(), 0);
    assert.equal(netscapeLoop(gif), 0);
    for (let i = 0; i < 6; i++)
      assert.ok(meanError(frames[i], input[i]) < 3, `frame ${i}: ${meanError(frames[i], input[i])}`);
  });

  test('gives each frame its own palette', async () => {
    const gif = await encode(
      every([solid([200, 30, 30]), solid([30, 200, 30]), solid([30, 30, 200])], 100),
      'highQuality',
    );
    const { reader, frames } = decode(gif);
    assert.equal(reader.frameInfo(0).has_local_palette, false, 'the first palette is the global one');
    assert.equal(reader.frameInfo(1).has_local_palette, true);
    assert.equal(reader.frameInfo(2).has_local_palette, true);
    assert.deepEqual([...frames[2].subarray(0, 4)], [30, 30, 200, 255]);
  });

  test('plays once with no NETSCAPE block and n times with a repeat count of n − 1', async () => {
    const frames = every(bannerFrames(2), 100);
    const once = await encode(frames, 'highQuality', 1);
    assert.equal(netscapeLoop(once), null);
    assert.equal(new GifReader(once).loopCount(), null);
    const thrice = await encode(frames, 'highQuality', 3);
    assert.equal(netscapeLoop(thrice), 2);
    assert.equal(new GifReader(thrice).loopCount(), 2);
  });

  test('rounds delays on the running total: 15 fps lasts as long as its frames say', async () => {
    const gif = await encode(every(bannerFrames(15), 1000 / 15), 'highQuality');
    const reader = new GifReader(gif);
    const delays = Array.from({ length: reader.numFrames() }, (_, i) => reader.frameInfo(i).delay);
    assert.equal(delays.length, 15);
    assert.ok(
      delays.every((d) => d >= 6 && d <= 7),
      delays.join(','),
    );
    const total = delays.reduce((a, b) => a + b, 0);
    assert.equal(total, 100, 'one second');
  });

  test(`raises delays under ${GIF_MIN_DELAY_CS} centiseconds, which browsers would show for 100 ms`, async () => {
    const gif = await encode(every(bannerFrames(3), 5), 'highQuality');
    const reader = new GifReader(gif);
    for (let i = 0; i < 3; i++) assert.equal(reader.frameInfo(i).delay, GIF_MIN_DELAY_CS);
  });

  test('merges consecutive identical frames and adds their delays', async () => {
    const [a, b] = bannerFrames(2);
    const gif = await encode(
      [
        { rgba: a, delayMs: 100 },
        { rgba: a.slice(), delayMs: 100 },
        { rgba: a, delayMs: 50 },
        { rgba: b, delayMs: 100 },
        { rgba: a, delayMs: 100 },
      ],
      'highQuality',
    );
    const reader = new GifReader(gif);
    assert.equal(reader.numFrames(), 3);
    assert.deepEqual(
      [0, 1, 2].map((i) => reader.frameInfo(i).delay),
      [25, 10, 10],
    );
  });

  test('dithers colours its palette lacks and leaves flat colours clean', async () => {
    const rich = richFrame(160, 120, 40);
    const [decoded] = decode(await encode([{ rgba: rich, delayMs: 100 }], 'highQuality', 0, 160, 120)).frames;
    assert.ok(meanError(decoded, rich) < 10, `mean error ${meanError(decoded, rich)}`);
    // The same palettes without dithering: every pixel its nearest colour.
    const undithered = (['rgb565', 'rgb444'] as const).map((format) => {
      const palette = gifenc.quantize(rich.slice(), 256, { format });
      const index = gifenc.applyPalette(rich.slice(), palette, format);
      const pixels = new Uint8Array(rich.length);
      for (let i = 0; i < index.length; i++) pixels.set([...palette[index[i]], 255], i * 4);
      return blockError(pixels, rich, 160, 120);
    });
    const block = blockError(decoded, rich, 160, 120);
    assert.ok(block < Math.min(...undithered) * 0.8, `4x4 block error ${block}, undithered ${undithered.join(', ')}`);

    const flat = solid([12, 99, 201]);
    flat.fill(255, 0, W * 4 * 10); // a white band
    const [clean] = decode(await encode([{ rgba: flat, delayMs: 100 }], 'highQuality')).frames;
    assert.equal(meanError(clean, flat), 0);
  });

  test('copies frames: a caller may reuse one buffer for every frame', async () => {
    const input = bannerFrames(4);
    const shared = new Uint8Array(W * H * 4);
    async function* reused() {
      for (const frame of input) {
        shared.set(frame);
        yield { rgba: shared, delayMs: 100 };
      }
    }
    const { frames } = decode(await encode(reused(), 'highQuality'));
    assert.equal(frames.length, 4);
    for (let i = 0; i < 4; i++) assert.ok(meanError(frames[i], input[i]) < 3, `frame ${i}`);
  });

  test('accepts frames that are views into a larger buffer', async () => {
    const [frame] = bannerFrames(1);
    const big = new Uint8Array(frame.length + 8);
    big.set(frame, 3);
    const [decoded] = decode(await encode([{ rgba: big.subarray(3, 3 + frame.length), delayMs: 0 }], 'static')).frames;
    assert.ok(meanError(decoded, frame) < 3);
  });
});

describe('encodeGif optimized', () => {
  test('is smaller than highQuality on the same frames and still close to them', async () => {
    const input = bannerFrames(20);
    const high = await encode(every(input, 66), 'highQuality');
    const optimized = await encode(every(input, 66), 'optimized');
    assert.ok(optimized.length < high.length / 2, `optimized ${optimized.length} B, highQuality ${high.length} B`);
    const { reader, frames } = decode(optimized);
    assert.equal(reader.numFrames(), 20);
    for (let i = 0; i < 20; i++)
      assert.ok(meanError(frames[i], input[i]) < 4, `frame ${i}: ${meanError(frames[i], input[i])}`);
  });

  test('draws later frames over earlier ones: disposal 1, transparent unchanged pixels, one global palette', async () => {
    const gif = await encode(every(bannerFrames(4), 100), 'optimized');
    const reader = new GifReader(gif);
    assert.equal(reader.frameInfo(0).disposal, 1);
    assert.equal(reader.frameInfo(0).transparent_index, null);
    for (let i = 1; i < 4; i++) {
      const info = reader.frameInfo(i);
      assert.equal(info.disposal, 1, `frame ${i}`);
      assert.notEqual(info.transparent_index, null, `frame ${i}`);
      assert.equal(info.has_local_palette, false, `frame ${i}`);
      assert.deepEqual([info.width, info.height], [W, H]);
    }
  });

  test('uses at most 128 colours', async () => {
    const { frames } = decode(await encode([{ rgba: richFrame(), delayMs: 100 }], 'optimized'));
    const colours = new Set<number>();
    const f = frames[0];
    for (let p = 0; p < f.length; p += 4) colours.add((f[p] << 16) | (f[p + 1] << 8) | f[p + 2]);
    assert.ok(colours.size <= 127, `${colours.size} colours`);
  });

  test('drops frames whose pixels all map to the indexes already shown, adding their delay', async () => {
    const base = solid([40, 80, 160]);
    const nudged = solid([41, 80, 160]); // the same palette entry
    const other = solid([220, 20, 20]);
    const gif = await encode(
      [
        { rgba: base, delayMs: 100 },
        { rgba: nudged, delayMs: 100 },
        { rgba: other, delayMs: 100 },
        { rgba: other, delayMs: 100 },
      ],
      'optimized',
      2,
    );
    const reader = new GifReader(gif);
    assert.equal(reader.numFrames(), 2);
    assert.deepEqual([reader.frameInfo(0).delay, reader.frameInfo(1).delay], [20, 20]);
    assert.equal(reader.loopCount(), 1);
  });
});

describe('encodeGif static', () => {
  test('writes one frame with no delay and no looping block', async () => {
    const [last] = bannerFrames(1);
    const gif = await encode([{ rgba: last, delayMs: 0 }], 'static', 0);
    const { reader, frames } = decode(gif);
    assert.equal(reader.numFrames(), 1);
    assert.equal(reader.frameInfo(0).delay, 0);
    assert.equal(netscapeLoop(gif), null);
    assert.ok(meanError(frames[0], last) < 3);
  });

  test('refuses more than one frame', async () => {
    await assert.rejects(encode(every(bannerFrames(2), 100), 'static'), /exactly one frame/);
  });
});

describe('encodeGif refuses', () => {
  test('a frame whose byte length does not match the size', async () => {
    await assert.rejects(
      encode([{ rgba: new Uint8Array(10), delayMs: 10 }], 'highQuality'),
      /frame 0: expected 43200 bytes/,
    );
  });

  test('no frames', async () => {
    await assert.rejects(encode([], 'highQuality'), /at least one frame/);
    await assert.rejects(encode([], 'optimized'), /at least one frame/);
  });

  test('a loop count outside 0..65536 and odd sizes', async () => {
    await assert.rejects(encode(every(bannerFrames(1), 10), 'highQuality', -1), /loop must be 0/);
    await assert.rejects(encodeGif([], { width: 0, height: 10, preset: 'optimized', loop: 0 }), /width and height/);
  });
});
