// Design thumbnails (SPEC §11): the first slide of the first size in its final state (every animation finished),
// longest side 400 px, PNG, kept in the BlobStore and linked with a URL valid for 12 hours (SPEC §6). The picture is a
// real render through the render pipeline. With a render pool in the deps it runs on a worker thread; without one
// (the service's wiring today passes only the BlobStore) it runs on the calling thread — a 400 px frame costs a few
// milliseconds of drawing and encoding, and fetching its images is asynchronous. A source that cannot be fetched does
// not block saving a design: the thumbnail leaves that image out (exports, in contrast, fail with SOURCE_REJECTED).
// Each thumbnail gets a key of its own, so a design's row and its thumbnail change together in one transaction and a
// link handed out earlier never shows a newer picture.
import { randomUUID, timingSafeEqual } from 'node:crypto';
import sharp from 'sharp';
import type { DesignDocument } from '../domain/design.schema.js';
import { renderImage } from '../formats/pipeline.js';
import type { RenderPool } from '../formats/pool.js';
import type { AssetFetcher } from '../render/media/assets.js';
import type { BrandFamily, BrandFontPreparer } from '../render/text/brand-fonts.js';
import type { BlobStore } from '../storage/blobs/blob-store.js';
import { type ServerKeys, signLink } from '../storage/secrets.js';

export const THUMBNAIL_LONGEST_SIDE = 400;
/** SPEC §6: thumbUrl expires after 12 hours. */
export const THUMBNAIL_URL_TTL_SECONDS = 12 * 60 * 60;

/** The thumbnail's dimensions for a size: the longest side 400 px, the other in proportion (at least 1 px). */
export function thumbnailDimensions(width: number, height: number): { width: number; height: number } {
  const scale = thumbnailScale(width, height);
  return {
    width: Math.max(1, Math.round(width * scale)),
    height: Math.max(1, Math.round(height * scale)),
  };
}

/** The render scale that makes the longest side 400 px (the pipeline rounds each side the same way). */
export function thumbnailScale(width: number, height: number): number {
  return THUMBNAIL_LONGEST_SIDE / Math.max(width, height);
}

export interface ThumbnailOptions {
  /** Renders on a worker thread when given; else on the calling thread. */
  pool?: Pick<RenderPool, 'render'>;
  /** Time budget of a thumbnail render on the pool (issue 14: every render has one). Default: none. */
  budgetMs?: number;
  /** Fetches media when rendering on the calling thread. Default: the thread's fetcher (pipeline.ts). */
  fetcher?: AssetFetcher;
  /** The design's team brand fonts (issue 17), for renders on the pool. Default: bundled fonts only. */
  brandFonts?: BrandFontPreparer;
  /**
   * Where thumbUrl points while a design's thumbnail is still being drawn (issue 15: the seed types thumbUrl as a
   * string): a signed `<publicUrl>/thumbnails/<hash>.png` link that answers the picture as soon as it exists. Without
   * it (the CLI seeder, which draws before answering) a design without a thumbnail has a null thumbUrl.
   */
  pendingLinks?: { publicUrl: string; keys: ServerKeys; now?: () => number };
}

function pendingPayload(designHash: string, exp: number): string {
  return `thumbnail\n${designHash}\n${exp}`;
}

/** The signed link to the thumbnail of a design, whichever it is when the link is followed (routes/thumbnails.ts). */
export function pendingThumbnailUrl(
  links: { publicUrl: string; keys: ServerKeys },
  designHash: string,
  exp: number,
): string {
  const sig = signLink(links.keys, pendingPayload(designHash, exp));
  return `${links.publicUrl}/thumbnails/${encodeURIComponent(designHash)}.png?exp=${exp}&sig=${sig}`;
}

/** Whether a /thumbnails link is one this service signed ('valid'), was signed but has expired, or is not ours. */
export function verifyPendingThumbnailLink(
  keys: ServerKeys,
  link: { designHash: string; exp: number; sig: string },
  nowSeconds: number,
): 'valid' | 'expired' | 'invalid' {
  const expected = Buffer.from(signLink(keys, pendingPayload(link.designHash, link.exp)));
  const given = Buffer.from(link.sig);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return 'invalid';
  return link.exp <= nowSeconds ? 'expired' : 'valid';
}

/**
 * A new thumbnail's storage key: `thumbnails/<the hash's first two characters>/<hash>-<uuid>.png`. A folder per
 * design cost a `mkdir` (a new inode) per export with changes on local disk (issue 21); 1,296 folders are made once.
 * A design's row holds its key, so thumbnails stored under `thumbnails/<hash>/` before are found where they are.
 */
export function thumbnailKey(designHash: string): string {
  return `thumbnails/${designHash.slice(0, 2)}/${designHash}-${randomUUID()}.png`;
}

/** The PNG of a design's thumbnail. */
export async function drawThumbnail(
  document: DesignDocument,
  options: ThumbnailOptions = {},
  brandFamilies?: BrandFamily[],
): Promise<Buffer> {
  const size = document.sizes[0];
  const scale = thumbnailScale(size.width, size.height);
  if (options.pool) {
    return Buffer.from(
      await options.pool.render(
        {
          document,
          brandFamilies,
          sizeIndex: 0,
          slideIndex: 0,
          format: 'png',
          settings: { scale },
          skipRejectedSources: true,
        },
        // Low priority: a thumbnail drawn in the background never takes a thread ahead of a waiting export.
        { low: true, ...(options.budgetMs === undefined ? {} : { budgetMs: options.budgetMs }) },
      ),
    );
  }
  return renderImage(document, 0, 0, { format: 'png', scale, skipRejectedSources: true, fetcher: options.fetcher });
}

export interface Thumbnails {
  /**
   * Draws and stores the thumbnail of a document; returns its new key. `owner` (the design's team and project) lets it
   * draw with the team's brand fonts; without it bundled fonts draw.
   */
  make(designHash: string, document: DesignDocument, owner?: { teamId: number; projectId: number }): Promise<string>;
  /**
   * Stores as the thumbnail a file already rendered of the first slide of the first size (PNG, JPG or WEBP at any
   * scale), resized to the thumbnail's dimensions: an export makes that picture anyway, so nothing is drawn twice.
   */
  fromRendered(designHash: string, size: { width: number; height: number }, rendered: Uint8Array): Promise<string>;
  /**
   * A link valid 12 hours: to the stored thumbnail when `key` is set; else, with `pendingLinks`, to the thumbnail of
   * `designHash` as soon as it is drawn; null only without either.
   */
  url(key: string | null, designHash?: string): Promise<string | null>;
  /**
   * The thumbUrl of a design (issue 15: always a string), as `url`. Without `pendingLinks` a design without a
   * thumbnail cannot be presented: the only service built without them (the CLI seeder) draws before answering.
   */
  designUrl(key: string | null, designHash: string): Promise<string>;
  /** Removes thumbnails that nothing refers to any more; a failure only leaves a stray file. */
  discard(keys: readonly (string | null)[]): Promise<void>;
}

export function createThumbnails(
  blobs: Pick<BlobStore, 'put' | 'signedUrl' | 'delete'>,
  options: ThumbnailOptions = {},
): Thumbnails {
  async function url(key: string | null, designHash?: string): Promise<string | null> {
    if (key !== null) return blobs.signedUrl(key, { ttlSeconds: THUMBNAIL_URL_TTL_SECONDS });
    const links = options.pendingLinks;
    if (!links || designHash === undefined) return null;
    const exp = Math.floor((links.now ?? Date.now)() / 1000) + THUMBNAIL_URL_TTL_SECONDS;
    return pendingThumbnailUrl(links, designHash, exp);
  }

  return {
    async make(designHash, document, owner) {
      const key = thumbnailKey(designHash);
      const prepared =
        options.pool && options.brandFonts && owner
          ? await options.brandFonts.prepare(owner.teamId, owner.projectId, document)
          : undefined;
      const drawn = prepared
        ? await drawThumbnail(prepared.document as DesignDocument, options, prepared.brandFamilies)
        : await drawThumbnail(document, options);
      await blobs.put(key, drawn, 'image/png');
      return key;
    },
    async fromRendered(designHash, size, rendered) {
      const key = thumbnailKey(designHash);
      const { width, height } = thumbnailDimensions(size.width, size.height);
      const bytes = await sharp(rendered)
        .resize({ width, height, fit: 'fill' })
        .png({ compressionLevel: 3 })
        .toBuffer();
      await blobs.put(key, bytes, 'image/png');
      return key;
    },
    url,
    async designUrl(key, designHash) {
      const link = await url(key, designHash);
      if (link === null) throw new Error(`design ${designHash} has no thumbnail yet and no link base to link it with`);
      return link;
    },
    async discard(keys) {
      await Promise.allSettled(keys.flatMap((key) => (key ? [blobs.delete(key)] : [])));
    },
  };
}
