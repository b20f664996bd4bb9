// The asset stage's images: every source an element asks for (image-source.ts) is fetched through the guarded
// fetcher, turned into decodable bytes (SVGCOLORS recolouring, a video's frame) and decoded once with Skia. Decoded
// images stay in an LRU of this thread, keyed by source, beside an in-flight map, so one render — or a hundred renders
// of one template on this worker — fetches and decodes each source once. Nothing here crosses threads: an Image is
// native memory of the thread that decoded it.
import { type Image, loadImage } from '@napi-rs/canvas';
import { LRUCache } from 'lru-cache';
import { AppError } from '../../errors.js';
import { TTL_WITHOUT_TIMER } from '../../lru-ttl.js';
import { rejected } from '../../net/url-guard.js';
import type { ResolvedAssets } from '../types.js';
import type { AssetFetcher } from './assets.js';
import { describeSource, type ImageRequest, isInlineMarkup, parseImageSource } from './image-source.js';
import { unsafeSvgReason } from './sniff.js';
import { recolorSvg } from './svg-colors.js';
import { withIntrinsicSize } from './svg-size.js';
import { rememberSvgMarkup } from './svg-vector.js';
import { extractFrame, ffmpegBinary } from './video-frame.js';

export interface ImageCacheOptions {
  /** Bytes of decoded pixels kept per thread (width × height × 4 each). Default 192 MiB. */
  maxBytes?: number;
  /**
   * How long a decoded image is reused before its URL is asked again. Default 10 minutes, the fetcher's own TTL, so a
   * file replaced on its server shows up in the same time whichever cache held it.
   */
  ttlMs?: number;
}

/** Decoded image, or null when the source has nothing to draw here (a video frame without ffmpeg). */
type Decoded = Image | null;

export interface ImageCache {
  /**
   * Fetches and decodes every source (in parallel, each once). A source that cannot be used throws SOURCE_REJECTED
   * naming it, unless `skipRejected` is set: then it simply has no image (thumbnails draw what they can).
   */
  resolve(sources: Iterable<string>, options?: { skipRejected?: boolean }): Promise<ResolvedAssets>;
  /** Decoded images held. */
  size(): number;
  clear(): void;
}

const NOTHING = Symbol('nothing');

/** Images decoded from SVG markup (vectors): preflight never calls them low-resolution. */
const vectors = new WeakSet<Image>();

export function createImageCache(fetcher: AssetFetcher, options: ImageCacheOptions = {}): ImageCache {
  const cache = new LRUCache<string, Image | typeof NOTHING>({
    maxSize: options.maxBytes ?? 192 * 1024 * 1024,
    sizeCalculation: (image) => (image === NOTHING ? 1 : Math.max(1, image.width * image.height * 4)),
    ttl: options.ttlMs ?? 10 * 60_000,
    ...TTL_WITHOUT_TIMER,
  });
  const inFlight = new Map<string, Promise<Decoded>>();

  async function decode(source: string, bytes: Buffer): Promise<Image> {
    try {
      return await loadImage(bytes);
    } catch (error) {
      throw rejected(describeSource(source), `cannot be decoded as an image (${(error as Error).message})`);
    }
  }

  async function decodeSvg(source: string, markup: string): Promise<Image> {
    const sized = withIntrinsicSize(markup);
    const image = await decode(source, Buffer.from(sized));
    vectors.add(image);
    // PDF pages draw the markup itself, as vectors (svg-vector.ts).
    rememberSvgMarkup(image, sized);
    return image;
  }

  /** Inline markup is checked by the same rule as fetched SVG files: no active content. */
  function inlineMarkup(src: string): string {
    const unsafe = unsafeSvgReason(Buffer.from(src));
    if (unsafe) throw rejected('inline SVG markup', `${unsafe}; SVG sources may not carry active content`);
    return src;
  }

  async function load(source: string, request: ImageRequest): Promise<Decoded> {
    switch (request.kind) {
      case 'image': {
        if (isInlineMarkup(request.src)) return decodeSvg(source, inlineMarkup(request.src));
        const media = await fetcher.fetch(request.src, { expect: ['IMAGE'] });
        return media.format === 'svg' ? decodeSvg(source, media.bytes.toString('utf8')) : decode(source, media.bytes);
      }
      case 'svg': {
        if (isInlineMarkup(request.src))
          return decodeSvg(source, recolorSvg(inlineMarkup(request.src), request.colors));
        const media = await fetcher.fetch(request.src, { expect: ['IMAGE'] });
        // A raster file where an SVG was expected has no colours to replace; it is drawn as it is.
        if (media.format !== 'svg') return decode(source, media.bytes);
        return decodeSvg(source, recolorSvg(media.bytes.toString('utf8'), request.colors));
      }
      case 'videoFrame': {
        const ffmpeg = await ffmpegBinary();
        if (!ffmpeg) return null;
        const media = await fetcher.fetch(request.src, { expect: ['VIDEO'] });
        let frame: Buffer;
        try {
          frame = await extractFrame(ffmpeg, media.bytes, request.at);
        } catch (error) {
          throw rejected(request.src, `has no frame to show at ${request.at} s (${(error as Error).message})`);
        }
        return decode(source, frame);
      }
    }
  }

  async function get(source: string): Promise<Decoded> {
    const cached = cache.get(source);
    if (cached !== undefined) return cached === NOTHING ? null : cached;
    let pending = inFlight.get(source);
    if (!pending) {
      pending = load(source, parseImageSource(source))
        .then((image) => {
          cache.set(source, image ?? NOTHING);
          return image;
        })
        .finally(() => inFlight.delete(source));
      inFlight.set(source, pending);
    }
    return pending;
  }

  async function getOrSkip(source: string): Promise<Decoded> {
    try {
      return await get(source);
    } catch (error) {
      if (error instanceof AppError && error.code === 'SOURCE_REJECTED') return null;
      throw error;
    }
  }

  return {
    async resolve(sources, options = {}) {
      const unique = [...new Set(sources)];
      const images = options.skipRejected
        ? await Promise.all(unique.map(getOrSkip))
        : await Promise.all(unique.map(get));
      const bySource = new Map<string, Image>();
      unique.forEach((source, i) => {
        const image = images[i];
        if (image) bySource.set(source, image);
      });
      return {
        image: (src) => bySource.get(src),
        vector: (src) => {
          const image = bySource.get(src);
          return image !== undefined && vectors.has(image);
        },
      };
    },
    size: () => cache.size,
    clear: () => cache.clear(),
  };
}

// One cache per fetcher: a fetcher carries the address policy, so an image fetched under a permissive policy is
// never handed to a render that runs under a strict one.
const caches = new WeakMap<AssetFetcher, ImageCache>();

/** This thread's image cache for a fetcher. */
export function imageCacheFor(fetcher: AssetFetcher): ImageCache {
  let cache = caches.get(fetcher);
  if (!cache) {
    cache = createImageCache(fetcher);
    caches.set(fetcher, cache);
  }
  return cache;
}
