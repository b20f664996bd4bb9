// GIF and MP4 of one size: the timeline's frames (render/animation.ts) into their encoders. Shared by the render
// threads (worker.ts) and `placard render`, so that both make the same files.
import fs from 'node:fs/promises';
import type { DesignDocument } from '../domain/design.schema.js';
import { loopCount, sizeDuration } from '../domain/timeline.js';
import type { AssetFetcher } from '../render/media/assets.js';
import { ffmpegBinary } from '../render/media/video-frame.js';
import { type AnimationFrame, animationFrames, audioTracksOf } from './animation.js';
import { encodeGif, type GifPreset } from './gif/gif.js';
import { encodeMp4, resolveFfmpeg } from './mp4/mp4.js';
import { frameOf, outputDimensions } from './pipeline.js';

/** Frames per second of the GIF presets: highQuality plays smoothly, optimized trades frames for bytes. */
export const GIF_FPS: Readonly<Record<GifPreset, number>> = { highQuality: 20, optimized: 10, static: 1 };

/** MP4 frames per second when the export does not say (targetFPS). */
export const DEFAULT_MP4_FPS = 30;

export interface AnimatedOptions {
  fetcher: AssetFetcher;
  /** FFMPEG_PATH, when configured. */
  ffmpegPath?: string | null;
  /** Output pixels per design pixel. Default 1. */
  scale?: number;
  /** Output frames done so far and the total. */
  onProgress?: (done: number, total: number) => void;
  /** Stops the render: ffmpeg is killed and waited for (reaped) before the render rejects. */
  signal?: AbortSignal;
}

export async function renderGif(
  document: DesignDocument,
  sizeIndex: number,
  preset: GifPreset,
  options: AnimatedOptions,
): Promise<Buffer> {
  const [size] = frameOf(document, sizeIndex, 0);
  const { width, height } = outputDimensions(size, options.scale);
  const fps = GIF_FPS[preset];
  const frames = animationFrames(document, sizeIndex, {
    fps,
    scale: options.scale,
    // static: one frame, which frameTimes makes the final state.
    durationSeconds: preset === 'static' ? 0 : sizeDuration(size),
    ffmpeg: await ffmpegBinary(options.ffmpegPath),
    fetcher: options.fetcher,
    onProgress: options.onProgress,
  });
  async function* withDelays(source: AsyncIterable<AnimationFrame>) {
    for await (const frame of source) yield { rgba: frame.rgba, delayMs: (frame.repeat * 1000) / fps };
  }
  return encodeGif(withDelays(frames), { width, height, preset, loop: loopCount(document) });
}

/** Writes the MP4 of a size to `out` (removed again when it fails): frames and sound of the whole timeline. */
export async function renderMp4(
  document: DesignDocument,
  sizeIndex: number,
  out: string,
  options: AnimatedOptions & { fps?: number },
): Promise<void> {
  const ffmpegPath = await resolveFfmpeg(options.ffmpegPath ?? null);
  const fps = options.fps ?? DEFAULT_MP4_FPS;
  const [size] = frameOf(document, sizeIndex, 0);
  const { width, height } = outputDimensions(size, options.scale);
  const durationSeconds = sizeDuration(size);
  const total = Math.max(1, Math.round(durationSeconds * fps));
  const { fetcher, onProgress } = options;
  const audio = await audioTracksOf(document, sizeIndex, fetcher);
  try {
    await encodeMp4({
      ffmpegPath,
      out,
      width,
      height,
      fps,
      durationSeconds,
      frames: animationFrames(document, sizeIndex, { fps, scale: options.scale, ffmpeg: ffmpegPath, fetcher }),
      audio: audio.tracks,
      signal: options.signal,
      onProgress: onProgress && ((written) => onProgress(written, total)),
    });
  } finally {
    await Promise.all(audio.files.map((file) => fs.rm(file, { force: true })));
  }
}
