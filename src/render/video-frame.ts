// Stills show a video element's first frame (after trimStart). ffmpeg comes from `@ffmpeg-installer/ffmpeg` when that
// package is installed, else from the PATH; where neither exists the frame is unavailable and the element draws
// nothing (the asset stage then does not even download the video).
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';

let binary: Promise<string | null> | undefined;

function probeBinary(candidate: string): Promise<boolean> {
  return new Promise((resolve) => {
    execFile(candidate, ['-version'], { timeout: 10_000, windowsHide: true }, (error) => resolve(!error));
  });
}

/** The ffmpeg binary to use, or null when this machine has none. Looked up once per thread. */
export function ffmpegBinary(): Promise<string | null> {
  binary ??= (async () => {
    try {
      const require = createRequire(import.meta.url);
      const installed = (require('@ffmpeg-installer/ffmpeg') as { path: string }).path;
      if (await probeBinary(installed)) return installed;
    } catch {
      // Not installed: try the PATH.
    }
    return (await probeBinary('ffmpeg')) ? 'ffmpeg' : null;
  })();
  return binary;
}

/**
 * The frame `at` seconds into the video as PNG bytes. The video goes through a temporary file, not a pipe: MP4s often
 * keep their index at the end, which ffmpeg can only reach by seeking.
 */
export async function extractFrame(ffmpeg: string, video: Uint8Array, at: number): Promise<Buffer> {
  const file = path.join(os.tmpdir(), `placard-frame-${randomBytes(8).toString('hex')}`);
  await fs.writeFile(file, video, { flag: 'wx', mode: 0o600 });
  try {
    const args = [
      '-v',
      'error',
      '-ss',
      String(at),
      '-i',
      file,
      '-frames:v',
      '1',
      '-f',
      'image2pipe',
      '-c:v',
      'png',
      '-',
    ];
    return await new Promise<Buffer>((resolve, reject) => {
      execFile(
        ffmpeg,
        args,
        { encoding: 'buffer', timeout: 30_000, maxBuffer: 256 * 1024 * 1024, windowsHide: true },
        (error, stdout, stderr) => {
          if (error) reject(new Error(stderr.toString().trim() || error.message));
          else if (stdout.length === 0) reject(new Error(`no frame at ${at} s`));
          else resolve(stdout);
        },
      );
    });
  } finally {
    await fs.rm(file, { force: true });
  }
}
