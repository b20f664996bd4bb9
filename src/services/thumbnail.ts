// Design thumbnails (SPEC §11): the first slide of the first size, longest side 400 px, PNG, kept in the BlobStore and
// linked with a URL valid for 12 hours (SPEC §6). Until the renderer exists the picture is a placeholder of the right
// proportions filled with the size's background colour; `drawThumbnail` is the one function the renderer replaces.
// Each thumbnail gets a key of its own, so a design's row and its thumbnail change together in one transaction and a
// link handed out earlier never shows a newer picture.
import { randomUUID } from 'node:crypto';
import { PNG } from 'pngjs';
import type { DesignDocument } from '../domain/design.schema.js';
import type { BlobStore } from '../storage/blobs/blob-store.js';

export const THUMBNAIL_LONGEST_SIDE = 400;
/** SPEC §6: thumbUrl expires after 12 hours. */
export const THUMBNAIL_URL_TTL_SECONDS = 12 * 60 * 60;

export type Rgba = readonly [number, number, number, number];

/** The thumbnail's dimensions for a size: the longest side 400 px, the other in proportion (at least 1 px). */
export function thumbnailDimensions(width: number, height: number): { width: number; height: number } {
  const scale = THUMBNAIL_LONGEST_SIDE / Math.max(width, height);
  return {
    width: Math.max(1, Math.round(width * scale)),
    height: Math.max(1, Math.round(height * scale)),
  };
}

function channel(text: string): number {
  const value = text.trim();
  const n = value.endsWith('%') ? (Number.parseFloat(value) / 100) * 255 : Number.parseFloat(value);
  return Math.max(0, Math.min(255, Math.round(n)));
}

function alpha(text: string): number {
  const value = text.trim();
  const n = value.endsWith('%') ? Number.parseFloat(value) / 100 : Number.parseFloat(value);
  return Math.max(0, Math.min(255, Math.round(n * 255)));
}

/**
 * RGBA of a colour as documents store it (elements/common.ts `Colour`): hex with 3, 4, 6 or 8 digits, rgb()/rgba()
 * or `transparent`. Anything else (which a validated document never holds) is white.
 */
export function parseColour(colour: string): Rgba {
  const text = colour.trim().toLowerCase();
  if (text === 'transparent') return [0, 0, 0, 0];
  const hex = /^#([0-9a-f]{3,8})$/.exec(text)?.[1];
  if (hex && [3, 4, 6, 8].includes(hex.length)) {
    const full = hex.length <= 4 ? [...hex].map((c) => c + c).join('') : hex;
    const byte = (i: number) => Number.parseInt(full.slice(i * 2, i * 2 + 2), 16);
    return [byte(0), byte(1), byte(2), full.length === 8 ? byte(3) : 255];
  }
  const rgb = /^rgba?\(([^)]*)\)$/.exec(text)?.[1]?.split(',');
  if (rgb && (rgb.length === 3 || rgb.length === 4)) {
    return [channel(rgb[0]), channel(rgb[1]), channel(rgb[2]), rgb.length === 4 ? alpha(rgb[3]) : 255];
  }
  return [255, 255, 255, 255];
}

/** The PNG of a design's thumbnail. Placeholder: the first size's background colour at the thumbnail's dimensions. */
export function drawThumbnail(document: DesignDocument): Buffer {
  const size = document.sizes[0];
  const { width, height } = thumbnailDimensions(size.width, size.height);
  const png = new PNG({ width, height });
  const [r, g, b, a] = parseColour(size.backgroundColor ?? '#FFFFFF');
  for (let i = 0; i < png.data.length; i += 4) {
    png.data[i] = r;
    png.data[i + 1] = g;
    png.data[i + 2] = b;
    png.data[i + 3] = a;
  }
  return PNG.sync.write(png);
}

export interface Thumbnails {
  /** Draws and stores the thumbnail of a document; returns its new key. */
  make(designHash: string, document: DesignDocument): Promise<string>;
  /** A link to a stored thumbnail, valid 12 hours; null when the design has none. */
  url(key: string | null): Promise<string | null>;
  /** Removes thumbnails that nothing refers to any more; a failure only leaves a stray file. */
  discard(keys: readonly (string | null)[]): Promise<void>;
}

export function createThumbnails(blobs: Pick<BlobStore, 'put' | 'signedUrl' | 'delete'>): Thumbnails {
  return {
    async make(designHash, document) {
      const key = `thumbnails/${designHash}/${randomUUID()}.png`;
      await blobs.put(key, drawThumbnail(document), 'image/png');
      return key;
    },
    async url(key) {
      return key === null ? null : blobs.signedUrl(key, { ttlSeconds: THUMBNAIL_URL_TTL_SECONDS });
    },
    async discard(keys) {
      await Promise.allSettled(keys.flatMap((key) => (key ? [blobs.delete(key)] : [])));
    },
  };
}
