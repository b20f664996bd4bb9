// MP4 encoder: raw RGBA frames (already drawn; nothing here draws) are piped into one ffmpeg process that writes
// H.264 + AAC. A frame that stays on screen is sent `repeat` times instead of being drawn again, and each write waits
// for the pipe (backpressure), so drawing the next frame overlaps with x264 encoding the previous ones.
//
// Settings: libx264 `-preset veryfast -crf 20`, yuv420p, BT.709 tagged, `+faststart` (the index before the media, so
// a browser starts playing before the download ends). See MP4_X264_PRESET for the measurements behind the preset.
// RGB becomes YUV with the BT.709 matrix and the stream says so: untagged H.264 is decoded as BT.601 by some players
// and as BT.709 by others, which shifts every colour in one or the other.
// Odd sides are padded by one pixel (black, right or bottom), never scaled: the design's pixels stay 1:1, and yuv420p
// needs even sides. `-t` cuts video and audio to the design's duration exactly; frames that fall short of it are held on
// the last frame.
//
// Audio: each track starts at its `start` (adelay), at its `volume`, padded with silence and cut to the duration, then
// mixed. The bundled ffmpeg (a 2018 build) has no `amix normalize=0`: amix divides every input by the number of
// inputs, so the mix is multiplied back by that number. This is exact because every input lasts exactly the
// duration (apad + atrim), so amix never renormalises when an input ends.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs/promises';
import type { Writable } from 'node:stream';
import { ffmpegBinary } from '../../render/media/video-frame.js';

export interface Mp4Frame {
  /**
   * width × height × 4 bytes, RGBA, opaque (alpha is dropped). The caller may reuse the buffer once the next frame is
   * asked for: by then every copy of this one has been handed to ffmpeg.
   */
  rgba: Uint8Array;
  /** How many consecutive video frames show these pixels (≥ 1). */
  repeat: number;
}

export interface Mp4AudioTrack {
  /** A local file ffmpeg can read (mp3, wav, ogg, or a video's sound track). */
  file: string;
  /** Seconds from the start of the video at which the file starts playing. */
  start: number;
  /** 0..1 (values above 1 amplify). */
  volume: number;
  /** Play the file again and again until the video ends. Default false. */
  loop?: boolean;
  /** Seconds into the file where playing starts (a video's trimStart). Default 0. */
  from?: number;
}

export interface Mp4Options {
  ffmpegPath: string;
  /** The file to write; removed again when encoding fails or is aborted. */
  out: string;
  width: number;
  height: number;
  /** 1..60. */
  fps: number;
  /** The file's duration: frames beyond it are not read, a shortfall is filled with the last frame. */
  durationSeconds: number;
  frames: AsyncIterable<Mp4Frame> | Iterable<Mp4Frame>;
  audio?: Mp4AudioTrack[];
  /** Aborting kills ffmpeg and rejects with an AbortError. */
  signal?: AbortSignal;
  /** Called after each frame with the number of video frames written so far (repeats counted). */
  onProgress?: (framesWritten: number) => void;
}

/**
 * x264 preset. Measured on this machine class (2 cores) encoding 4 s at 30 fps of 1080x1920 (a gradient, 40
 * translucent discs and two lines of text, all moving), crf 20, time per frame including the pipe:
 *   ultrafast 21 ms 6.7 MB · superfast 25 ms 6.3 MB · veryfast 35 ms 3.1 MB · faster 52 ms 3.3 MB · medium 76 ms 3.0 MB
 * veryfast halves superfast's file for 40% more time; medium saves 3% more (SSIM 23.0 against 22.6 dB) for twice
 * the time. Renders are budgeted by time (10 min a video), so veryfast.
 */
export const MP4_X264_PRESET = 'veryfast';
/**
 * x264 constant rate factor. At veryfast on the clip above: crf 18 4.1 MB (SSIM 23.4 dB), 20 3.1 MB (22.6 dB), 23
 * (x264's default) 2.3 MB (21.6 dB). Ads carry small text over flat colour, where artefacts show first: 20 keeps most
 * of 18's quality for three quarters of its size.
 */
export const MP4_CRF = 20;
/** AAC bit rate of the mixed sound track. */
export const MP4_AUDIO_BITRATE = '128k';

const STDERR_TAIL = 4096;

/**
 * Mono to stereo at full level on both sides, as a browser plays a mono file. ffmpeg's own up-mix puts a mono channel
 * on each side at −3 dB (measured: a mono tone came out at 0.0625 RMS instead of 0.0884). Stereo passes unchanged.
 */
const STEREO = 'pan=stereo|FL=FL+FC|FR=FR+FC';

/** The ffmpeg to run: FFMPEG_PATH when configured, else the bundled @ffmpeg-installer binary, else `ffmpeg` on PATH. */
export async function resolveFfmpeg(configured: string | null): Promise<string> {
  const found = await ffmpegBinary(configured);
  if (found) return found;
  throw new Error(
    configured
      ? `FFMPEG_PATH '${configured}' does not run ('${configured} -version' failed)`
      : 'no ffmpeg found: install @ffmpeg-installer/ffmpeg, put ffmpeg on the PATH or set FFMPEG_PATH',
  );
}

/** The ffmpeg arguments of an encode (exported for tests and for logging a failed job's command). */
export function mp4Arguments(options: Omit<Mp4Options, 'frames' | 'signal' | 'onProgress' | 'ffmpegPath'>): string[] {
  const { width, height, fps, durationSeconds, audio = [] } = options;
  const evenWidth = width + (width % 2);
  const evenHeight = height + (height % 2);
  const video = [
    ...(evenWidth !== width || evenHeight !== height ? [`pad=${evenWidth}:${evenHeight}:0:0:black`] : []),
    'scale=out_color_matrix=bt709:out_range=tv',
    'format=yuv420p',
  ].join(',');
  const graph = [`[0:v]${video}[v]`];
  const samples = Math.round(durationSeconds * 48_000);
  audio.forEach((track, i) => {
    const delay = Math.round(track.start * 1000);
    graph.push(
      `[${i + 1}:a]${STEREO},aformat=sample_fmts=fltp:sample_rates=48000:channel_layouts=stereo,volume=${track.volume},` +
        `adelay=${delay}|${delay},apad=whole_len=${samples},atrim=end_sample=${samples}[a${i}]`,
    );
  });
  if (audio.length === 1) graph.push('[a0]anull[a]');
  else if (audio.length > 1) {
    const inputs = audio.map((_, i) => `[a${i}]`).join('');
    graph.push(`${inputs}amix=inputs=${audio.length}:duration=longest:dropout_transition=0,volume=${audio.length}[a]`);
  }
  return [
    '-hide_banner',
    '-nostdin',
    '-loglevel',
    'error',
    '-y',
    '-f',
    'rawvideo',
    '-pix_fmt',
    'rgba',
    '-s',
    `${width}x${height}`,
    '-r',
    String(fps),
    '-i',
    'pipe:0',
    ...audio.flatMap((track) => [
      ...(track.loop ? ['-stream_loop', '-1'] : []),
      ...(track.from ? ['-ss', String(track.from)] : []),
      '-i',
      track.file,
    ]),
    '-filter_complex',
    graph.join(';'),
    '-map',
    '[v]',
    ...(audio.length ? ['-map', '[a]'] : []),
    '-c:v',
    'libx264',
    '-preset',
    MP4_X264_PRESET,
    '-crf',
    String(MP4_CRF),
    '-pix_fmt',
    'yuv420p',
    '-colorspace',
    'bt709',
    '-color_primaries',
    'bt709',
    '-color_trc',
    'bt709',
    '-color_range',
    'tv',
    ...(audio.length ? ['-c:a', 'aac', '-b:a', MP4_AUDIO_BITRATE] : []),
    '-t',
    String(durationSeconds),
    '-movflags',
    '+faststart',
    '-f',
    'mp4',
    options.out,
  ];
}

function validate(options: Mp4Options): void {
  const { width, height, fps, durationSeconds } = options;
  if (!Number.isInteger(width) || !Number.isInteger(height) || width < 1 || height < 1) {
    throw new RangeError(`MP4 width and height must be whole numbers ≥ 1, received ${width}x${height}`);
  }
  if (!Number.isFinite(fps) || fps < 1 || fps > 60) throw new RangeError(`MP4 fps must be 1..60, received ${fps}`);
  if (!Number.isFinite(durationSeconds) || durationSeconds <= 0) {
    throw new RangeError(`MP4 durationSeconds must be a number > 0, received ${durationSeconds}`);
  }
  for (const [i, track] of (options.audio ?? []).entries()) {
    if (!(track.start >= 0) || !Number.isFinite(track.start)) {
      throw new RangeError(`audio[${i}].start must be a number of seconds ≥ 0, received ${track.start}`);
    }
    if (!(track.volume >= 0) || !Number.isFinite(track.volume)) {
      throw new RangeError(`audio[${i}].volume must be a number ≥ 0, received ${track.volume}`);
    }
  }
}

function abortError(signal: AbortSignal): Error {
  const error = new Error('MP4 encoding was aborted', { cause: signal.reason });
  error.name = 'AbortError';
  return error;
}

/**
 * Encodes the frames to `out`. Rejects with a RangeError on bad options or a frame of the wrong size, an AbortError
 * when `signal` aborts, and an Error carrying the tail of ffmpeg's stderr when ffmpeg fails.
 */
export async function encodeMp4(options: Mp4Options): Promise<void> {
  validate(options);
  const { signal } = options;
  if (signal?.aborted) throw abortError(signal);

  const child = spawn(options.ffmpegPath, mp4Arguments(options), { stdio: ['pipe', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-STDERR_TAIL);
  });
  // A write after ffmpeg exited fails with EPIPE; the exit code and stderr explain why, so that is what is reported.
  child.stdin.on('error', () => {});
  const exited = new Promise<{ code: number | null; spawnError?: Error }>((resolve) => {
    child.once('error', (spawnError) => resolve({ code: null, spawnError }));
    child.once('close', (code) => resolve({ code }));
  });
  const onAbort = () => child.kill('SIGKILL');
  signal?.addEventListener('abort', onAbort, { once: true });

  let feedError: unknown;
  try {
    await feed(options, child.stdin, exited);
  } catch (error) {
    feedError = error;
    // A frame or the caller's iterator failed: stop ffmpeg, or it would finish a truncated file and exit 0. When the
    // pipe closed, ffmpeg has stopped by itself and its exit code and stderr tell why.
    if (!(error instanceof PipeClosedError)) child.kill('SIGKILL');
  } finally {
    child.stdin.end();
  }
  const { code, spawnError } = await exited;
  signal?.removeEventListener('abort', onAbort);

  let failure: unknown;
  if (signal?.aborted) failure = abortError(signal);
  else if (spawnError)
    failure = new Error(`ffmpeg could not be started (${options.ffmpegPath}): ${spawnError.message}`);
  else if (feedError && !(feedError instanceof PipeClosedError)) failure = feedError;
  else if (code !== 0) {
    const tail = stderr.trim().split('\n').slice(-10).join('\n');
    failure = new Error(`ffmpeg exited with code ${code}${tail ? `: ${tail}` : ''}`);
  } else if (feedError) failure = feedError;
  if (failure) {
    await fs.rm(options.out, { force: true });
    throw failure;
  }
}

/** ffmpeg stopped reading its input (it exited). */
class PipeClosedError extends Error {}

/**
 * Writes every frame `repeat` times, at most as many video frames as the duration holds. A write that fills the pipe
 * waits for 'drain'; the last copy of a frame is awaited until ffmpeg has taken it, so the caller may then reuse the
 * buffer. Stops early when ffmpeg exits or the signal aborts, even while the caller is still drawing a frame.
 */
async function feed(options: Mp4Options, stdin: Writable, exited: Promise<unknown>): Promise<void> {
  const { width, height, fps, durationSeconds, signal, onProgress } = options;
  const bytes = width * height * 4;
  const total = Math.max(1, Math.round(durationSeconds * fps));
  // Each wait races against a fresh promise that the stop wakes. Racing every frame against one long-lived "stopped"
  // promise would leak: each race leaves a reaction on it that keeps the race's result — the frame — alive until the
  // encode ends (measured: 300 frames of 1080x1920 held 2.5 GB).
  let stop = false;
  let wake: (() => void) | undefined;
  const onStop = () => {
    stop = true;
    wake?.();
  };
  void exited.then(onStop);
  signal?.addEventListener('abort', onStop, { once: true });
  const stopped = () =>
    new Promise<'stopped'>((resolve) => {
      if (stop) resolve('stopped');
      else wake = () => resolve('stopped');
    });
  const frames = options.frames;
  const iterator = (Symbol.asyncIterator in frames ? frames : fromSync(frames))[Symbol.asyncIterator]();
  let exhausted = false;
  let last: Mp4Frame | undefined;
  let written = 0;
  let index = 0;
  try {
    while (written < total) {
      const next = await Promise.race([iterator.next(), stopped()]);
      if (next === 'stopped') return;
      let frame: Mp4Frame;
      if (next.done) {
        exhausted = true;
        if (!last) return;
        // A shortfall is the last frame held to the end. Done here, not with ffmpeg's tpad: with tpad, an ffmpeg whose
        // input closed early (the render thread or the process killed) went on encoding minutes of padding.
        frame = { rgba: last.rgba, repeat: total - written };
      } else {
        frame = next.value;
      }
      last = frame;
      if (frame.rgba.length !== bytes) {
        throw new RangeError(
          `MP4 frame ${index}: expected ${bytes} bytes of RGBA for ${width}x${height}, received ${frame.rgba.length}`,
        );
      }
      if (!Number.isInteger(frame.repeat) || frame.repeat < 1) {
        throw new RangeError(`MP4 frame ${index}: repeat must be a whole number ≥ 1, received ${frame.repeat}`);
      }
      const copies = Math.min(frame.repeat, total - written);
      for (let i = 0; i < copies; i++) {
        if (i < copies - 1) {
          // A failed write (ffmpeg gone) rejects the wait for 'drain' or the last copy's callback.
          if (!stdin.write(frame.rgba)) {
            const drained = once(stdin, 'drain').catch((error: Error) => {
              throw new PipeClosedError(error.message);
            });
            await Promise.race([drained, stopped()]);
          }
        } else {
          const taken = new Promise<void>((resolve, reject) => {
            stdin.write(frame.rgba, (error) => (error ? reject(new PipeClosedError(error.message)) : resolve()));
          });
          taken.catch(() => {});
          await Promise.race([taken, stopped()]);
        }
        if (stop) return;
      }
      written += copies;
      index++;
      onProgress?.(written);
    }
  } finally {
    // Let a generator run its cleanup when it is not read to the end (full duration, failure, abort).
    if (!exhausted) void Promise.resolve(iterator.return?.()).catch(() => {});
  }
}

async function* fromSync<T>(items: Iterable<T>): AsyncGenerator<T> {
  yield* items;
}
