// The sequential video decoder on a small MP4 made by ffmpeg in the test: a 2 s, 10 fps clip whose frame N is red
// 12 × N, so the colour of a served frame tells which frame of the video it is.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ffmpegBinary, openVideoDecoder, type VideoDecoderOptions } from '../../../src/render/media/video-frame.js';

const ffmpeg = await ffmpegBinary();
const skip = ffmpeg ? false : 'no ffmpeg on this machine';

let dir: string;
let clip: string;
before(async () => {
  if (!ffmpeg) return;
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'placard-decoder-'));
  clip = path.join(dir, 'clip.mp4');
  const source = "color=c=black:s=64x48:r=10:d=2,format=rgb24,geq=r='N*12':g='100':b='200'";
  await new Promise<void>((resolve, reject) => {
    execFile(
      ffmpeg,
      ['-v', 'error', '-y', '-f', 'lavfi', '-i', source, '-c:v', 'libx264', '-crf', '5', '-pix_fmt', 'yuv420p', clip],
      (error) => (error ? reject(error) : resolve()),
    );
  });
});
after(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** Which frame of the clip (0..19) an RGBA frame shows, read from its centre pixel's red. */
function frameNumber(rgba: Uint8Array, width: number, height: number): number {
  const p = (Math.floor(height / 2) * width + Math.floor(width / 2)) * 4;
  assert.ok(Math.abs(rgba[p + 1] - 100) < 8 && Math.abs(rgba[p + 2] - 200) < 8, 'green and blue of the clip');
  return Math.round(rgba[p] / 12);
}

function open(options: Partial<VideoDecoderOptions> = {}) {
  return openVideoDecoder(ffmpeg!, clip, { width: 64, height: 48, fps: 10, from: 0, loop: false, ...options });
}

/** ffmpeg processes reading `file` (Linux /proc). */
function decodersOf(file: string): number {
  if (!fs.existsSync('/proc')) return 0;
  return fs
    .readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        return fs.readFileSync(`/proc/${pid}/cmdline`, 'latin1').includes(file);
      } catch {
        return false;
      }
    }).length;
}

describe('openVideoDecoder', { skip }, () => {
  test('serves the frame showing at each time, reading forward and restarting for an earlier time', async () => {
    const decoder = open();
    try {
      const at = async (t: number) => {
        const rgba = await decoder.frameAt(t);
        assert.equal(rgba.length, 64 * 48 * 4);
        return frameNumber(rgba, 64, 48);
      };
      assert.equal(await at(0), 0);
      assert.equal(await at(0.05), 0);
      assert.equal(await at(0.55), 5);
      assert.equal(await at(1), 10);
      assert.equal(await at(0.2), 2, 'an earlier time restarts the process');
      assert.equal(await at(1.95), 19);
    } finally {
      decoder.close();
    }
  });

  test('holds the last frame after the end', async () => {
    const decoder = open();
    try {
      assert.equal(frameNumber(await decoder.frameAt(5), 64, 48), 19);
      assert.equal(frameNumber(await decoder.frameAt(60), 64, 48), 19);
      assert.equal(frameNumber(await decoder.frameAt(0.3), 64, 48), 3, 'and can still go back');
    } finally {
      decoder.close();
    }
  });

  test('loops from `from` when asked to', async () => {
    const decoder = open({ loop: true });
    try {
      assert.equal(frameNumber(await decoder.frameAt(0.1), 64, 48), 1);
      assert.equal(frameNumber(await decoder.frameAt(2.3), 64, 48), 3, 'the second pass');
      assert.equal(frameNumber(await decoder.frameAt(4.75), 64, 48), 7, 'the third pass');
    } finally {
      decoder.close();
    }

    const trimmed = open({ loop: true, from: 1.5 });
    try {
      assert.equal(frameNumber(await trimmed.frameAt(0), 64, 48), 15);
      assert.equal(frameNumber(await trimmed.frameAt(0.6), 64, 48), 16, 'one pass of 5 frames from 1.5 s');
    } finally {
      trimmed.close();
    }
  });

  test('starts at `from`, resamples to the output rate and scales', async () => {
    const decoder = open({ from: 0.5, fps: 20, width: 32, height: 24 });
    try {
      const first = await decoder.frameAt(0);
      assert.equal(first.length, 32 * 24 * 4);
      assert.equal(frameNumber(first, 32, 24), 5);
      assert.equal(frameNumber(await decoder.frameAt(0.5), 32, 24), 10);
      assert.equal(frameNumber(await decoder.frameAt(1.0), 32, 24), 15);
    } finally {
      decoder.close();
    }
  });

  test('serves concurrent calls in order, and frames stay valid after later calls', async () => {
    const decoder = open();
    try {
      const frames = await Promise.all([decoder.frameAt(0.1), decoder.frameAt(0.5), decoder.frameAt(0.3)]);
      assert.deepEqual(
        frames.map((f) => frameNumber(f, 64, 48)),
        [1, 5, 3],
      );
    } finally {
      decoder.close();
    }
  });

  test('rejects when there is no frame to show, with what ffmpeg said', async () => {
    const missing = openVideoDecoder(ffmpeg!, path.join(dir, 'missing.mp4'), {
      width: 8,
      height: 8,
      fps: 10,
      from: 0,
      loop: false,
    });
    await assert.rejects(
      missing.frameAt(0),
      /decoded no frame of .*missing\.mp4 from 0 s: .*No such file or directory/,
    );
    missing.close();

    const pastTheEnd = open({ from: 10 });
    await assert.rejects(pastTheEnd.frameAt(0), /decoded no frame/);
    pastTheEnd.close();
  });

  test('close stops ffmpeg; frameAt rejects afterwards', async () => {
    // Frames of 640x480 (1.2 MB each): the 20 frames cannot all fit in the pipe and the stream's buffer, so ffmpeg is
    // surely still running, blocked, when the first frame is served (at 64x48 the whole clip is 245 kB and a fast
    // ffmpeg could finish first).
    const decoder = open({ width: 640, height: 480 });
    await decoder.frameAt(0);
    if (fs.existsSync('/proc')) assert.equal(decodersOf(clip), 1, 'ffmpeg is running, blocked on the full pipe');
    decoder.close();
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(decodersOf(clip), 0);
    await assert.rejects(decoder.frameAt(0.1), /closed/);
  });
});
