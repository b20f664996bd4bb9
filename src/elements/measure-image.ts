// What image, svg, code (poster) and video elements measure for preflight: the image their `draw` would place, with
// the same fit (render/fit.ts placeImage is what drawFitted draws with).
import { type FitOptions, placeImage } from '../render/fit.js';
import { parseImageSource } from '../render/media/image-source.js';
import type { ResolvedAssets } from '../render/types.js';
import type { ElementMeasure } from './element-kind.js';

/** The fitted image of `source` in a box, or nothing when the asset stage resolved no image for it. */
export function measureFitted(
  source: string,
  assets: ResolvedAssets,
  box: { width: number; height: number },
  options: FitOptions,
): ElementMeasure {
  const image = assets.image(source);
  if (!image || image.width <= 0 || image.height <= 0 || box.width <= 0 || box.height <= 0) {
    return { texts: [], images: [] };
  }
  const { src } = parseImageSource(source);
  return {
    texts: [],
    images: [
      {
        source,
        url: src.trimStart().startsWith('<') ? null : src,
        vector: assets.vector?.(source) ?? false,
        width: image.width,
        height: image.height,
        placement: placeImage(image.width, image.height, box.width, box.height, options),
      },
    ],
  };
}
