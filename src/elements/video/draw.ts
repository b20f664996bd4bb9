// Stills show a video element's frame at trimStart, fitted like an image. The frame comes from ffmpeg
// (render/video-frame.ts); where this machine has no ffmpeg the asset stage resolves nothing and the box stays empty.
// Animated exports draw the frame showing at their time (DrawContext.videoFrame, render/animation.ts).
import { drawFitted } from '../../render/fit.js';
import { videoFrameSource } from '../../render/media/image-source.js';
import type { DrawContext, ResolvedAssets } from '../../render/types.js';
import type { ElementMeasure } from '../element-kind.js';
import { measureFitted } from '../measure-image.js';
import type { VideoElement } from './schema.js';

export function imagesOfVideo(element: VideoElement): string[] {
  return [videoFrameSource(element.src, element.trimStart ?? 0)];
}

/** The still frame, placed as `drawVideo` places it (animated frames have the video's own size too). */
export function measureVideo(element: VideoElement, assets: ResolvedAssets): ElementMeasure {
  return measureFitted(videoFrameSource(element.src, element.trimStart ?? 0), assets, element, {
    fit: element.fit ?? 'cover',
  });
}

export function drawVideo(element: VideoElement, dc: DrawContext): void {
  const frame = dc.videoFrame?.(element) ?? dc.assets.image(videoFrameSource(element.src, element.trimStart ?? 0));
  if (!frame) return;
  drawFitted(dc.ctx, frame, element.width, element.height, { fit: element.fit ?? 'cover' });
}
