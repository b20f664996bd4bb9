// Stills show a video element's first frame (after trimStart). ffmpeg is FFMPEG_PATH when configured, else the binary
// of `@ffmpeg-installer/ffmpeg` when that package is installed, else `ffmpeg` from the PATH; where none runs the frame
// is unavailable and the element draws nothing (the asset stage then does not even download the video).
// Animated exports read a video element's frames in order through openVideoDecoder: one ffmpeg process per element
// streams raw frames, and the render thread takes them as its clock advances.
import { type ChildProcessByStdio, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';

const binaries = new Map<string, Promise<string | null>>();

function probeBinary(candidate: string): Promise<boolean> {
  return new Promise((resolve) => {
    execFile(candidate, ['-version'], { timeout: 10_000, windowsHide: true }, (error) => resolve(!error));
  });
}

/**
 * The ffmpeg binary to use, or null when this machine has none. `configured` (FFMPEG_PATH) is the only candidate when
 * given: a setting that names a binary that does not run is reported, not silently replaced. Without it: the binary of
 * `@ffmpeg-installer/ffmpeg`, else `ffmpeg` from the PATH. Looked up once per thread and path.
 */
export function ffmpegBinary(configured?: string | null): Promise<string | null> {
  const key = configured ?? '';
  let found = binaries.get(key);
  if (!found) {
    found = configured
      ? probeBinary(configured).then((ok) => (ok ? configured : null))
      : (async () => {
          try {
            const require = createRequire(import.meta.url);
            const installed = (require('@ffmpeg-installer/ffmpeg') as { path: string }).path;
            if (await probeBinary(installed)) return installed;
          } catch {
            // Not installed: try the PATH.
          }
          return (await probeBinary('ffmpeg')) ? 'ffmpeg' : null;
        })();
    binaries.set(key, found);
  }
  return found;
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

export interface VideoDecoderOptions {
  /** Size of the frames served; the video is scaled to exactly this (the caller keeps the aspect ratio it wants). */
  width: number;
  height: number;
  /** Frames per second served: the output's frame rate, not the video's own. */
  fps: number;
  /** Seconds into the file where time 0 is (the element's trimStart). */
  from: number;
  /** After the last frame, start again at `from`; otherwise the last frame stays. */
  loop: boolean;
}

export interface VideoDecoder {
  /**
   * The RGBA frame (width × height × 4 bytes) showing `t` seconds after `from`. Calls are served in order; asking for
   * a later time reads forward, an earlier one restarts ffmpeg. The array is not reused: it stays valid after the
   * next call. Rejects when the video yields no frame at all (unreadable, or `from` past its end).
   */
  frameAt(t: number): Promise<Uint8Array>;
  /** Stops ffmpeg. Idempotent; frameAt rejects afterwards. */
  close(): void;
}

type Decoding = ChildProcessByStdio<null, Readable, Readable>;

/**
 * A sequential decoder of a local video file: one ffmpeg process turns it into a stream of raw RGBA frames at `fps`
 * (`-ss from -i file -vf fps,scale -f rawvideo`), read only as far as the latest time asked for. ffmpeg blocks on the
 * full pipe when it is ahead, so memory stays at the frame being served plus the pipe's buffers, whatever the length
 * of the video.
 */
export function openVideoDecoder(ffmpeg: string, file: string, options: VideoDecoderOptions): VideoDecoder {
  const { width, height, fps, from, loop } = options;
  if (!Number.isInteger(width) || !Number.isInteger(height) || width < 1 || height < 1) {
    throw new RangeError(`video frames need whole width and height ≥ 1, received ${width}x${height}`);
  }
  if (!(fps > 0) || !Number.isFinite(fps)) throw new RangeError(`fps must be a number > 0, received ${fps}`);
  if (!(from >= 0) || !Number.isFinite(from)) throw new RangeError(`from must be seconds ≥ 0, received ${from}`);
  const frameBytes = width * height * 4;

  let running: Decoding | undefined;
  let stderr = '';
  /** Index of the next frame the process will deliver. */
  let next = 0;
  let current: { index: number; rgba: Uint8Array } | undefined;
  /** Frames in one pass through the video, once a pass has reached the end. */
  let length: number | undefined;
  let closed = false;
  let queue: Promise<unknown> = Promise.resolve();
  let chunks: AsyncIterator<Buffer> | undefined;
  /** Settles when the running process has closed (and its stderr is read). */
  let exited: Promise<unknown> = Promise.resolve();
  let pending: Buffer[] = [];
  let pendingBytes = 0;

  const start = () => {
    stop();
    stderr = '';
    const args = ['-hide_banner', '-nostdin', '-loglevel', 'error', '-ss', String(from), '-i', file, '-an', '-sn'];
    args.push('-vf', `fps=${fps},scale=${width}:${height}`, '-f', 'rawvideo', '-pix_fmt', 'rgba', 'pipe:1');
    const child = spawn(ffmpeg, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-4096);
    });
    child.on('error', (error) => {
      stderr += `\n${error.message}`;
    });
    running = child;
    exited = new Promise((resolve) => child.once('close', resolve));
    chunks = child.stdout[Symbol.asyncIterator]();
    pending = [];
    pendingBytes = 0;
    next = 0;
  };

  function stop() {
    if (!running) return;
    running.stdout.destroy();
    running.kill('SIGKILL');
    running = undefined;
  }

  /**
   * The next frame of the running process, or null at its end. Chunks are pulled through the stream's async iterator,
   * one at a time and only when a frame needs them, so ffmpeg blocks on the full pipe when it is ahead. (Waiting for
   * 'readable' instead spins: Node re-emits it on nextTick while a partial frame is buffered, which starves the I/O
   * that would complete the frame.) A frame is a view of the chunks it came from, which the stream never reuses.
   */
  const readFrame = async (): Promise<Uint8Array | null> => {
    const reading = running!;
    while (pendingBytes < frameBytes) {
      let step: IteratorResult<Buffer>;
      try {
        step = await chunks!.next();
      } catch {
        return null; // the stream was destroyed (stop, or ffmpeg died): no more frames from this process
      }
      if (step.done || running !== reading) return null;
      pending.push(step.value);
      pendingBytes += step.value.length;
    }
    const all = pending.length === 1 ? pending[0] : Buffer.concat(pending, pendingBytes);
    const rest = all.subarray(frameBytes);
    pending = rest.length > 0 ? [rest] : [];
    pendingBytes = rest.length;
    next++;
    return all.subarray(0, frameBytes);
  };

  const serve = async (t: number): Promise<Uint8Array> => {
    if (closed) throw new Error('the video decoder is closed');
    let target = Math.max(0, Math.floor(t * fps + 1e-6));
    if (loop && length !== undefined) target %= length;
    else if (length !== undefined) target = Math.min(target, length - 1);
    if (current?.index === target) return current.rgba;
    if (!running || target < next) start();
    while (next <= target) {
      const index = next;
      const rgba = await readFrame();
      if (!rgba) {
        const frames = next;
        // stdout can end before ffmpeg's last words reach stderr: wait for the process to close (briefly) so that
        // the reason is in the message.
        if (frames === 0) await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 2_000))]);
        stop();
        if (frames === 0) {
          const reason = stderr.trim().split('\n').slice(-3).join('; ');
          throw new Error(`ffmpeg decoded no frame of ${file} from ${from} s${reason ? `: ${reason}` : ''}`);
        }
        length = frames;
        if (loop) return serve(t);
        return current!.rgba;
      }
      current = { index, rgba };
    }
    return current!.rgba;
  };

  return {
    frameAt(t) {
      const result = queue.then(() => serve(t));
      queue = result.catch(() => {});
      return result;
    },
    close() {
      closed = true;
      stop();
    },
  };
}
