// MP4 encoding checked on the files themselves: ffprobe for codecs, sizes, rates, durations and frame counts; the box
// order for faststart; frames and sound decoded back by ffmpeg for colours, timing, volume and mixing; and ffmpeg's
// process for abort and failure.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { encodeMp4, type Mp4Frame, type Mp4Options, resolveFfmpeg } from '../../../src/formats/mp4/mp4.js';
import { ffprobePath } from '../../../src/render/media/media-probe.js';
import { ffmpegBinary } from '../../../src/render/media/video-frame.js';

const ffmpeg = await ffmpegBinary();
const skip = ffmpeg ? false : 'no ffmpeg on this machine';

let dir: string;
before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'placard-mp4-'));
});
after(() => fs.rmSync(dir, { recursive: true, force: true }));

function run(binary: string, args: string[]): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    execFile(binary, args, { encoding: 'buffer', maxBuffer: 256 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${path.basename(binary)} failed: ${stderr.toString()}`));
      else resolve(stdout);
    });
  });
}

interface Stream {
  codec_type: string;
  codec_name: string;
  pix_fmt?: string;
  width?: number;
  height?: number;
  r_frame_rate: string;
  duration: string;
  nb_read_frames?: string;
  color_space?: string;
  sample_rate?: string;
}

async function probe(file: string): Promise<{ video: Stream; audio?: Stream; duration: number }> {
  const json = JSON.parse(
    (
      await run(ffprobePath(), ['-v', 'error', '-count_frames', '-show_streams', '-show_format', '-of', 'json', file])
    ).toString(),
  ) as { streams: Stream[]; format: { duration: string } };
  const video = json.streams.find((s) => s.codec_type === 'video');
  assert.ok(video, 'a video stream');
  return { video, audio: json.streams.find((s) => s.codec_type === 'audio'), duration: Number(json.format.duration) };
}

/** Every frame decoded back to RGBA. */
async function decodeFrames(file: string, width: number, height: number): Promise<Uint8Array[]> {
  const raw = await run(ffmpeg!, ['-v', 'error', '-i', file, '-f', 'rawvideo', '-pix_fmt', 'rgba', 'pipe:1']);
  const size = width * height * 4;
  return Array.from({ length: raw.length / size }, (_, i) => raw.subarray(i * size, (i + 1) * size));
}

/** The left channel decoded back as 48 kHz float samples. */
async function decodeAudio(file: string): Promise<Float32Array> {
  const raw = await run(ffmpeg!, ['-v', 'error', '-i', file, '-map', '0:a', '-f', 'f32le', '-ar', '48000', 'pipe:1']);
  const stereo = new Float32Array(raw.buffer, raw.byteOffset, raw.length / 4);
  return stereo.filter((_, i) => i % 2 === 0);
}

/** Root mean square of the samples between two times. */
function rms(samples: Float32Array, from: number, to: number): number {
  const part = samples.subarray(Math.round(from * 48_000), Math.round(to * 48_000));
  return Math.sqrt(part.reduce((sum, s) => sum + s * s, 0) / part.length);
}

/** The MP4's top-level boxes in file order. */
function topLevelBoxes(file: string): string[] {
  const bytes = fs.readFileSync(file);
  const boxes: string[] = [];
  for (let offset = 0; offset + 8 <= bytes.length; ) {
    let size = bytes.readUInt32BE(offset);
    boxes.push(bytes.toString('latin1', offset + 4, offset + 8));
    if (size === 1) size = Number(bytes.readBigUInt64BE(offset + 8));
    if (size === 0) break;
    offset += size;
  }
  return boxes;
}

function solid(width: number, height: number, rgb: readonly [number, number, number]): Uint8Array {
  const f = new Uint8Array(width * height * 4);
  for (let p = 0; p < f.length; p += 4) f.set([...rgb, 255], p);
  return f;
}

function pixel(frame: Uint8Array, width: number, x: number, y: number): number[] {
  const p = (y * width + x) * 4;
  return [frame[p], frame[p + 1], frame[p + 2]];
}

function assertColour(actual: number[], expected: readonly number[], message: string, tolerance = 6): void {
  assert.ok(
    actual.every((v, i) => Math.abs(v - expected[i]) <= tolerance),
    `${message}: expected ${expected.join(',')}, decoded ${actual.join(',')}`,
  );
}

/** A WAV of a 440 Hz sine (amplitude 1/8, as lavfi makes it). */
async function sine(name: string, seconds: number): Promise<string> {
  const file = path.join(dir, name);
  await run(ffmpeg!, [
    '-v',
    'error',
    '-y',
    '-f',
    'lavfi',
    '-i',
    `sine=frequency=440:sample_rate=48000:duration=${seconds}`,
    file,
  ]);
  return file;
}
const SINE_RMS = 0.125 / Math.SQRT2;

const COLOURS = [
  [255, 0, 0],
  [0, 255, 0],
  [0, 0, 255],
  [240, 200, 40],
] as const;

async function* colourFrames(width: number, height: number, repeat: number): AsyncGenerator<Mp4Frame> {
  for (const colour of COLOURS) yield { rgba: solid(width, height, colour), repeat };
}

function options(name: string, overrides: Partial<Mp4Options>): Mp4Options {
  return {
    ffmpegPath: ffmpeg!,
    out: path.join(dir, name),
    width: 64,
    height: 48,
    fps: 30,
    durationSeconds: 2,
    frames: colourFrames(64, 48, 15),
    ...overrides,
  };
}

describe('encodeMp4 video', { skip }, () => {
  test('H.264 yuv420p at the frame rate and duration, odd sides padded, index first, colours kept', async () => {
    const out = path.join(dir, 'odd.mp4');
    const progress: number[] = [];
    await encodeMp4(
      options('odd.mp4', {
        width: 101,
        height: 75,
        frames: colourFrames(101, 75, 15),
        onProgress: (n) => progress.push(n),
      }),
    );
    const { video, audio, duration } = await probe(out);
    assert.equal(video.codec_name, 'h264');
    assert.equal(video.pix_fmt, 'yuv420p');
    assert.deepEqual([video.width, video.height], [102, 76], 'padded to even sides, not scaled');
    assert.equal(video.r_frame_rate, '30/1');
    assert.equal(video.nb_read_frames, '60');
    assert.equal(video.color_space, 'bt709');
    assert.ok(Math.abs(duration - 2) < 0.05, `duration ${duration}`);
    assert.equal(audio, undefined);
    assert.deepEqual(progress, [15, 30, 45, 60]);

    const boxes = topLevelBoxes(out);
    assert.ok(boxes.indexOf('moov') >= 0 && boxes.indexOf('moov') < boxes.indexOf('mdat'), boxes.join(' '));

    const frames = await decodeFrames(out, 102, 76);
    assert.equal(frames.length, 60);
    for (const [i, colour] of COLOURS.entries()) {
      for (const f of [i * 15, i * 15 + 14]) {
        assertColour(pixel(frames[f], 102, 50, 37), colour, `frame ${f} centre`);
        assertColour(pixel(frames[f], 102, 0, 0), colour, `frame ${f} corner`);
      }
    }
  });

  test('an even size is left as it is; fps other than 30 is kept', async () => {
    const out = path.join(dir, 'even.mp4');
    await encodeMp4(options('even.mp4', { fps: 12, durationSeconds: 1, frames: colourFrames(64, 48, 3) }));
    const { video } = await probe(out);
    assert.deepEqual([video.width, video.height, video.r_frame_rate, video.nb_read_frames], [64, 48, '12/1', '12']);
  });

  test('stops reading frames at the duration and lets the generator clean up', async () => {
    let finished = false;
    let yielded = 0;
    async function* endless(): AsyncGenerator<Mp4Frame> {
      try {
        for (;;) {
          yielded++;
          yield { rgba: solid(64, 48, COLOURS[yielded % 4]), repeat: 7 };
        }
      } finally {
        finished = true;
      }
    }
    const out = path.join(dir, 'long.mp4');
    await encodeMp4(options('long.mp4', { durationSeconds: 1, frames: endless() }));
    assert.equal(yielded, 5, '30 frames of 7 repeats each need 5 frames');
    assert.ok(finished, 'the generator was returned');
    assert.equal((await probe(out)).video.nb_read_frames, '30');
  });

  test('holds the last frame when the frames end before the duration', async () => {
    const out = path.join(dir, 'short.mp4');
    await encodeMp4(options('short.mp4', { durationSeconds: 2, frames: colourFrames(64, 48, 5) }));
    const { video, duration } = await probe(out);
    assert.equal(video.nb_read_frames, '60');
    assert.ok(Math.abs(duration - 2) < 0.05, `duration ${duration}`);
    const frames = await decodeFrames(out, 64, 48);
    assertColour(pixel(frames[59], 64, 32, 24), COLOURS[3], 'the last frame');
  });

  test('a caller may reuse one buffer for every frame (accepts sync iterables)', async () => {
    const shared = new Uint8Array(64 * 48 * 4);
    function* reused(): Generator<Mp4Frame> {
      for (const colour of COLOURS) {
        shared.set(solid(64, 48, colour));
        yield { rgba: shared, repeat: 15 };
      }
    }
    const out = path.join(dir, 'reused.mp4');
    await encodeMp4(options('reused.mp4', { frames: reused() }));
    const frames = await decodeFrames(out, 64, 48);
    for (const [i, colour] of COLOURS.entries())
      assertColour(pixel(frames[i * 15], 64, 32, 24), colour, `frame ${i * 15}`);
  });
});

describe('encodeMp4 audio', { skip }, () => {
  test('places each track at its start and volume, mixes without halving, trims to the duration', async () => {
    const out = path.join(dir, 'mixed.mp4');
    const tone = await sine('tone.wav', 1);
    await encodeMp4(
      options('mixed.mp4', {
        audio: [
          { file: tone, start: 0, volume: 1 },
          { file: tone, start: 1.3, volume: 0.5 },
        ],
      }),
    );
    const { audio, duration } = await probe(out);
    assert.ok(audio, 'an audio stream');
    assert.equal(audio.codec_name, 'aac');
    assert.equal(audio.sample_rate, '48000');
    assert.ok(Math.abs(Number(audio.duration) - 2) < 0.05, `audio duration ${audio.duration}`);
    assert.ok(Math.abs(duration - 2) < 0.05, `duration ${duration}`);

    const samples = await decodeAudio(out);
    const first = rms(samples, 0.2, 0.8);
    const gap = rms(samples, 1.07, 1.23);
    const second = rms(samples, 1.4, 1.9);
    assert.ok(Math.abs(first - SINE_RMS) < SINE_RMS * 0.1, `first track at full volume: rms ${first}`);
    assert.ok(gap < 0.005, `silence between the tracks: rms ${gap}`);
    assert.ok(Math.abs(second - SINE_RMS / 2) < SINE_RMS * 0.1, `second track at half volume: rms ${second}`);
  });

  test('one track, delayed; a looped track plays to the end', async () => {
    const short = await sine('short.wav', 0.5);
    const delayed = path.join(dir, 'delayed.mp4');
    await encodeMp4(options('delayed.mp4', { audio: [{ file: short, start: 1, volume: 1 }] }));
    let samples = await decodeAudio(delayed);
    assert.ok(rms(samples, 0.1, 0.9) < 0.005, 'silent before its start');
    assert.ok(Math.abs(rms(samples, 1.1, 1.4) - SINE_RMS) < SINE_RMS * 0.1, 'playing after its start');
    assert.ok(rms(samples, 1.6, 1.9) < 0.005, 'silent after its end');

    const looped = path.join(dir, 'looped.mp4');
    await encodeMp4(options('looped.mp4', { audio: [{ file: short, start: 0, volume: 1, loop: true }] }));
    samples = await decodeAudio(looped);
    assert.ok(Math.abs(rms(samples, 1.6, 1.9) - SINE_RMS) < SINE_RMS * 0.1, 'still playing at the end');
    const { audio } = await probe(looped);
    assert.ok(Math.abs(Number(audio?.duration) - 2) < 0.05, `audio duration ${audio?.duration}`);
  });
});

/** Processes whose command line names `file` (Linux /proc). */
function processesUsing(file: string): number[] {
  if (!fs.existsSync('/proc')) return [];
  return fs
    .readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        return fs.readFileSync(`/proc/${pid}/cmdline`, 'latin1').includes(file);
      } catch {
        return false;
      }
    })
    .map(Number);
}

describe('encodeMp4 failures', { skip }, () => {
  test('abort kills ffmpeg, rejects with an AbortError and removes the file', async () => {
    const controller = new AbortController();
    const out = path.join(dir, 'aborted.mp4');
    let running: number[] = [];
    async function* slow(): AsyncGenerator<Mp4Frame> {
      for (let i = 0; ; i++) {
        if (i === 3) {
          running = processesUsing(out);
          controller.abort();
        }
        yield { rgba: solid(64, 48, COLOURS[i % 4]), repeat: 1 };
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    }
    await assert.rejects(
      encodeMp4(options('aborted.mp4', { durationSeconds: 60, frames: slow(), signal: controller.signal })),
      { name: 'AbortError' },
    );
    if (fs.existsSync('/proc')) assert.equal(running.length, 1, 'ffmpeg was running');
    assert.deepEqual(processesUsing(out), [], 'no ffmpeg left');
    assert.equal(fs.existsSync(out), false);
  });

  test('abort while the caller is still drawing a frame', async () => {
    const controller = new AbortController();
    async function* stuck(): AsyncGenerator<Mp4Frame> {
      yield { rgba: solid(64, 48, COLOURS[0]), repeat: 1 };
      await new Promise(() => {}); // never draws the next one
    }
    setTimeout(() => controller.abort(), 50);
    await assert.rejects(encodeMp4(options('stuck.mp4', { frames: stuck(), signal: controller.signal })), {
      name: 'AbortError',
    });
  });

  test('an already aborted signal starts nothing', async () => {
    await assert.rejects(encodeMp4(options('pre.mp4', { signal: AbortSignal.abort() })), { name: 'AbortError' });
    assert.equal(fs.existsSync(path.join(dir, 'pre.mp4')), false);
  });

  test("ffmpeg's failure carries the tail of its stderr", async () => {
    const out = path.join(dir, 'failed.mp4');
    await assert.rejects(
      encodeMp4(options('failed.mp4', { audio: [{ file: path.join(dir, 'missing.mp3'), start: 0, volume: 1 }] })),
      /ffmpeg exited with code \d+: .*missing\.mp3: No such file or directory/,
    );
    assert.equal(fs.existsSync(out), false);
  });

  test("the caller's error wins over ffmpeg's", async () => {
    async function* broken(): AsyncGenerator<Mp4Frame> {
      yield { rgba: solid(64, 48, COLOURS[0]), repeat: 1 };
      throw new Error('the renderer broke');
    }
    await assert.rejects(encodeMp4(options('broken.mp4', { frames: broken() })), /the renderer broke/);
    assert.equal(fs.existsSync(path.join(dir, 'broken.mp4')), false);
  });

  test('a frame of the wrong size and bad options are RangeErrors', async () => {
    await assert.rejects(
      encodeMp4(options('size.mp4', { frames: [{ rgba: new Uint8Array(12), repeat: 1 }] })),
      (error: Error) => error instanceof RangeError && /MP4 frame 0: expected 12288 bytes/.test(error.message),
    );
    await assert.rejects(encodeMp4(options('fps.mp4', { fps: 61 })), RangeError);
    await assert.rejects(encodeMp4(options('zero.mp4', { durationSeconds: 0 })), RangeError);
  });
});

describe('resolveFfmpeg', { skip }, () => {
  test('prefers the configured binary, falls back to the bundled one, refuses one that does not run', async () => {
    assert.equal(await resolveFfmpeg(null), ffmpeg);
    assert.equal(await resolveFfmpeg(ffmpeg), ffmpeg);
    await assert.rejects(resolveFfmpeg(path.join(dir, 'no-ffmpeg')), /FFMPEG_PATH '.*no-ffmpeg' does not run/);
  });
});
