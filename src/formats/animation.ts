// Animated renders (GIF, MP4): the frames of one size over its timeline (domain/timeline.ts), drawn on the render
// thread with the same drawing path as the stills. A run of frames whose pixels cannot differ (equal frameKey) is drawn
// once and handed on with a repeat count, so a 15 s story whose motion lasts 2 s draws a few dozen frames, not 450.
// The last frame is the final state (frameTimes), so the last frame of an MP4 and a static GIF equal the PNG export.
// Video elements play: each one's file is decoded in order by one ffmpeg process (video-frame.ts openVideoDecoder) at
// the output frame rate, and the frame showing at each time is drawn where the still would draw the first one.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { type Canvas, createCanvas, ImageData } from '@napi-rs/canvas';
import type { DesignDocument } from '../domain/design.schema.js';
import { FINAL_FRAME, frameKey, frameTimes, sizeDuration, slideAt, slideSpans } from '../domain/timeline.js';
import type { AudioElement } from '../elements/audio/schema.js';
import type { BaseElement } from '../elements/common.js';
import type { VideoElement } from '../elements/video/schema.js';
import { AppError } from '../errors.js';
import type { AssetFetcher } from '../render/media/assets.js';
import { openVideoDecoder, type VideoDecoder } from '../render/media/video-frame.js';
import type { Mp4AudioTrack } from './mp4/mp4.js';
import { type FrameOptions, frameOf, outputDimensions, renderFrame } from './pipeline.js';

/** One distinct frame and how many consecutive output frames show it. */
export interface AnimationFrame {
  /** RGBA of the output size; valid until the next frame is asked for. */
  rgba: Uint8Array;
  repeat: number;
}

/** The distinct frames of `times`: the first time of each run of equal frame keys and the run's length. */
export function frameRuns(
  size: Parameters<typeof frameKey>[0],
  times: readonly number[],
): { t: number; repeat: number }[] {
  const runs: { t: number; repeat: number; key: string }[] = [];
  for (const t of times) {
    const key = frameKey(size, t);
    const last = runs.at(-1);
    // The final frame always starts its own run: it is drawn at FINAL_FRAME, the still's state, not at the time of the
    // run before it (a finished animation at time t and the final state agree to well under a pixel, but not always
    // to the byte; the last frame must equal the PNG export).
    if (last && last.key === key && t !== FINAL_FRAME) last.repeat += 1;
    else runs.push({ t, repeat: 1, key });
  }
  return runs.map(({ t, repeat }) => ({ t, repeat }));
}

export interface AnimationOptions {
  /** Output frames per second. */
  fps: number;
  /** Output pixels per design pixel. Default 1. */
  scale?: number;
  /** Seconds of the output; default the size's duration (the sum of its slides' durations). */
  durationSeconds?: number;
  /** ffmpeg to decode video elements with; null: video elements show their still frame. */
  ffmpeg?: string | null;
  fetcher?: AssetFetcher;
  /** Called after each distinct frame with the output frames done so far and the total. */
  onProgress?: (done: number, total: number) => void;
}

/** Videos decoded in order, one per video element of the size, keyed by `<slide>/<element name>`. */
interface Playback {
  frameOf(slideIndex: number, element: { name: string }): Canvas | undefined;
  /** Decodes the frame of each video of the slide showing at `localTime`. */
  seek(slideIndex: number, localTime: number): Promise<void>;
  close(): Promise<void>;
}

/** Decoded size of a video: its own, bounded so that a 4K clip in a 300x250 box is not decoded at 4K. */
function decodeSize(element: VideoElement, media: { width?: number; height?: number }, scale: number) {
  const box = Math.max(element.width, element.height) * scale * 2;
  const w = media.width ?? Math.round(element.width * scale);
  const h = media.height ?? Math.round(element.height * scale);
  const shrink = Math.min(1, box / Math.max(w, h, 1));
  // Even sides: some decoders' scalers refuse odd chroma sizes.
  const even = (v: number) => Math.max(2, Math.round((v * shrink) / 2) * 2);
  return { width: even(w), height: even(h) };
}

async function openPlayback(
  document: DesignDocument,
  sizeIndex: number,
  options: AnimationOptions,
  fetcher: AssetFetcher | undefined,
): Promise<Playback> {
  const [size] = frameOf(document, sizeIndex, 0);
  const players = new Map<string, { decoder: VideoDecoder; canvas: Canvas; width: number; height: number }>();
  // The final frame shows what the stills show (the frame at trimStart), so that it equals the PNG export.
  let final = false;
  const files: string[] = [];
  const keyOf = (slideIndex: number, element: { name: string }) => `${slideIndex}/${element.name}`;
  const close = async () => {
    for (const player of players.values()) player.decoder.close();
    await Promise.all(files.map((file) => fs.rm(file, { force: true })));
  };
  if (options.ffmpeg && fetcher) {
    try {
      for (const [slideIndex, slide] of size.slides.entries()) {
        for (const element of slide.elements as BaseElement[]) {
          if (element.type !== 'video' || element.visible === false) continue;
          const video = element as VideoElement;
          const media = await fetcher.fetch(video.src, { expect: ['VIDEO'] });
          // ffmpeg reads from a file, not a pipe: MP4s often keep their index at the end, reachable only by seeking.
          const file = path.join(os.tmpdir(), `placard-video-${randomBytes(8).toString('hex')}`);
          files.push(file);
          await fs.writeFile(file, media.bytes, { flag: 'wx', mode: 0o600 });
          const { width, height } = decodeSize(video, media, options.scale ?? 1);
          const decoder = openVideoDecoder(options.ffmpeg, file, {
            width,
            height,
            fps: options.fps,
            from: video.trimStart ?? 0,
            loop: video.loop === true,
          });
          players.set(keyOf(slideIndex, video), { decoder, canvas: createCanvas(width, height), width, height });
        }
      }
    } catch (error) {
      await close();
      throw error;
    }
  }
  return {
    frameOf: (slideIndex, element) => (final ? undefined : players.get(keyOf(slideIndex, element))?.canvas),
    async seek(slideIndex, localTime) {
      final = localTime === FINAL_FRAME;
      if (final) return;
      for (const [key, player] of players) {
        if (!key.startsWith(`${slideIndex}/`)) continue;
        let rgba: Uint8Array;
        try {
          rgba = await player.decoder.frameAt(localTime);
        } catch (error) {
          throw new AppError('SOURCE_REJECTED', `a video of slide ${slideIndex + 1}: ${(error as Error).message}`);
        }
        const pixels = new Uint8ClampedArray(rgba.buffer, rgba.byteOffset, rgba.byteLength);
        player.canvas.getContext('2d').putImageData(new ImageData(pixels, player.width, player.height), 0, 0);
      }
    },
    close,
  };
}

/**
 * The distinct frames of one size at `fps`, in order, drawn one at a time (memory holds one frame, whatever the
 * duration). The caller consumes a frame before asking for the next: its pixels live in a pooled canvas.
 */
export async function* animationFrames(
  document: DesignDocument,
  sizeIndex: number,
  options: AnimationOptions,
): AsyncGenerator<AnimationFrame> {
  const [size] = frameOf(document, sizeIndex, 0);
  const duration = options.durationSeconds ?? sizeDuration(size);
  const times = frameTimes(duration, options.fps);
  const runs = frameRuns(size, times);
  const playback = await openPlayback(document, sizeIndex, options, options.fetcher);
  const frameOptions: FrameOptions = { scale: options.scale, fetcher: options.fetcher };
  const { width, height } = outputDimensions(size, options.scale);
  let done = 0;
  try {
    for (const run of runs) {
      const { slideIndex, localTime } = slideAt(size, run.t);
      await playback.seek(slideIndex, localTime);
      const frame = await renderFrame(document, sizeIndex, slideIndex, {
        ...frameOptions,
        time: localTime,
        videoFrame: (element) => playback.frameOf(slideIndex, element),
      });
      try {
        const rgba = frame.canvas.data();
        if (rgba.length !== width * height * 4) throw new Error(`frame of ${rgba.length} bytes for ${width}x${height}`);
        yield { rgba, repeat: run.repeat };
      } finally {
        frame.release();
      }
      done += run.repeat;
      options.onProgress?.(done, times.length);
      // Give the event loop a turn between frames: the pixels read back from Skia are native memory that Node frees
      // only in a later phase of the loop, so a consumer that never yields to it holds every frame (measured on 300
      // frames of 1080x1920: 2.5 GB → 89 MB of RSS, and 21.5 → 1.7 ms a frame).
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  } finally {
    await playback.close();
  }
}

/** Where each slide of a size starts, for tracks placed on slides (audio). */
export function slideStarts(document: DesignDocument, sizeIndex: number): number[] {
  return slideSpans(frameOf(document, sizeIndex, 0)[0]).map((span) => span.start);
}

/**
 * The sound of a size for the MP4 muxer: every visible video element that is not muted, from the start of its slide
 * (from its trimStart, looping if it loops). Files go to the temporary folder; the caller removes them (`files`).
 */
export async function audioTracksOf(
  document: DesignDocument,
  sizeIndex: number,
  fetcher: AssetFetcher,
): Promise<{ tracks: Mp4AudioTrack[]; files: string[] }> {
  const [size] = frameOf(document, sizeIndex, 0);
  const starts = slideStarts(document, sizeIndex);
  const tracks: Mp4AudioTrack[] = [];
  const files: string[] = [];
  try {
    for (const [slideIndex, slide] of size.slides.entries()) {
      for (const element of slide.elements as BaseElement[]) {
        const sound = soundOf(element);
        if (!sound || element.visible === false) continue;
        const media = await fetcher.fetch(sound.src, { expect: sound.expect });
        // A video without a sound track adds nothing (and ffmpeg refuses to map a stream that is not there).
        if (media.kind === 'VIDEO' && media.hasAudio !== true) continue;
        const file = path.join(os.tmpdir(), `placard-audio-${randomBytes(8).toString('hex')}`);
        files.push(file);
        await fs.writeFile(file, media.bytes, { flag: 'wx', mode: 0o600 });
        tracks.push({
          file,
          start: starts[slideIndex] + sound.start,
          volume: sound.volume,
          loop: sound.loop,
          from: sound.from,
        });
      }
    }
  } catch (error) {
    await Promise.all(files.map((file) => fs.rm(file, { force: true })));
    throw error;
  }
  return { tracks, files };
}

/** What an element plays: a video that is not muted plays its sound track from the start of its slide. */
function soundOf(
  element: BaseElement,
): { src: string; start: number; volume: number; loop: boolean; from: number; expect: ('AUDIO' | 'VIDEO')[] } | null {
  if (element.type === 'video') {
    const video = element as VideoElement;
    if (video.muted !== false) return null;
    return {
      src: video.src,
      start: 0,
      volume: 1,
      loop: video.loop === true,
      from: video.trimStart ?? 0,
      expect: ['VIDEO'],
    };
  }
  if (element.type === 'audio') {
    const audio = element as AudioElement;
    return {
      src: audio.src,
      start: audio.start ?? 0,
      volume: audio.volume ?? 1,
      loop: audio.loop === true,
      from: audio.trimStart ?? 0,
      expect: ['AUDIO'],
    };
  }
  return null;
}
