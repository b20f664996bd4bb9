// What a media file measures: image dimensions from the header (image-size, no decoding), audio/video duration and
// video dimensions by probing with ffprobe (the binary of @ffprobe-installer/ffprobe, else `ffprobe` on PATH).
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { imageSize } from 'image-size';
import type { MediaFormat } from './sniff.js';

/**
 * ffprobe's first error line in the user's words: without its `[mov,mp4,… @ 0x3932d200]` prefix (a heap address is
 * an internal detail) and, for the usual cases, saying what is wrong with the file.
 */
export function plainProbeMessage(line: string): string {
  const text = line
    .replace(/^\[[^\]]*@\s*0x[0-9a-f]+\]\s*/i, '')
    .replace(/0x[0-9a-f]{6,}/gi, '')
    .trim();
  if (/moov atom not found/i.test(text)) return 'the file is incomplete: it ends before its index (not a finished MP4)';
  if (/invalid data found|could not find codec|unknown format/i.test(text)) {
    return 'the file is damaged or is not in the format its type says';
  }
  if (/end of file|truncat|partial file/i.test(text)) return 'the file is cut short';
  return text || 'the file cannot be read';
}

export interface ImageDimensions {
  width: number;
  height: number;
}

/**
 * Width and height as displayed (JPEG EXIF orientations 5–8 swap them), or null when the header has none (an SVG
 * without width, height or viewBox). Throws when the header is broken.
 */
export function imageDimensions(bytes: Uint8Array): ImageDimensions | null {
  const size = imageSize(bytes);
  if (!size.width || !size.height) return null;
  const swapped = size.orientation !== undefined && size.orientation >= 5;
  return swapped ? { width: size.height, height: size.width } : { width: size.width, height: size.height };
}

export interface ProbeResult {
  /** Seconds, when the container says. */
  durationSeconds?: number;
  /** Of the first video stream. */
  width?: number;
  height?: number;
  hasVideo: boolean;
  hasAudio: boolean;
}

/** Measures an audio or video file; null when no prober is available here (the duration is then unknown). */
export type MediaProber = (bytes: Uint8Array, format: MediaFormat) => Promise<ProbeResult | null>;

export class ProbeError extends Error {}

/** The ffprobe binary: the one @ffprobe-installer ships for this platform, else `ffprobe` from PATH. */
export function ffprobePath(): string {
  try {
    const require = createRequire(import.meta.url);
    return (require('@ffprobe-installer/ffprobe') as { path: string }).path;
  } catch {
    return 'ffprobe';
  }
}

interface FfprobeJson {
  format?: { duration?: string };
  streams?: { codec_type?: string; width?: number; height?: number; duration?: string }[];
}

/**
 * A prober that runs ffprobe on a temporary copy of the file (a pipe would not do: MP4s often keep their index at
 * the end, which ffprobe must seek to). Resolves null when no ffprobe binary can be started.
 */
export function createFfprobeProber(options: { binary?: string; timeoutMs?: number } = {}): MediaProber {
  // Found on the first probe, not when the prober is made: a render without audio or video never needs it.
  let binary = options.binary;
  const timeout = options.timeoutMs ?? 10_000;
  let missing = false;
  return async (bytes, format) => {
    if (missing) return null;
    binary ??= ffprobePath();
    const program = binary;
    const file = path.join(os.tmpdir(), `placard-probe-${randomBytes(8).toString('hex')}.${format}`);
    await fs.writeFile(file, bytes, { flag: 'wx', mode: 0o600 });
    try {
      const stdout = await new Promise<string>((resolve, reject) => {
        execFile(
          program,
          ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', file],
          { timeout, maxBuffer: 4 * 1024 * 1024, windowsHide: true },
          (error, out, err) => {
            if (error) {
              if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
                reject(error);
                return;
              }
              const firstLine = String(err).trim().split('\n')[0]?.replace(file, 'the file') ?? '';
              reject(new ProbeError(error.killed ? 'probing took too long' : plainProbeMessage(firstLine)));
              return;
            }
            resolve(String(out));
          },
        );
      });
      const json = JSON.parse(stdout) as FfprobeJson;
      const streams = json.streams ?? [];
      const video = streams.find((s) => s.codec_type === 'video');
      // The container's duration when it has one; otherwise the longest stream's.
      const seconds = (d: string | undefined) => (d !== undefined && Number.isFinite(Number(d)) ? Number(d) : null);
      const streamDurations = streams.map((s) => seconds(s.duration)).filter((d): d is number => d !== null);
      const duration =
        seconds(json.format?.duration) ?? (streamDurations.length ? Math.max(...streamDurations) : undefined);
      return {
        durationSeconds: duration,
        width: video?.width || undefined,
        height: video?.height || undefined,
        hasVideo: Boolean(video),
        hasAudio: streams.some((s) => s.codec_type === 'audio'),
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
        missing = true;
        return null;
      }
      throw error;
    } finally {
      await fs.rm(file, { force: true });
    }
  };
}
