// Every untrusted media URL goes through here (SOURCE element changes, brand kit asset uploads): share-link policy,
// SSRF guard on every hop (net/url-guard.ts), redirects followed by hand, one overall timeout, a byte cap enforced while
// streaming, type by content, the limits of SPEC §9, then an LRU of fetched media by URL with in-flight
// de-duplication, so that one render (or ten renders of one template) fetches each URL once.
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { LRUCache } from 'lru-cache';
import { AppError } from '../../errors.js';
import { TTL_WITHOUT_TIMER } from '../../lru-ttl.js';
import { createUrlGuard, displayUrl, rejected, type UrlGuardOptions } from '../../net/url-guard.js';
import { loadSharp } from './load-sharp.js';
import { createFfprobeProber, imageDimensions, type MediaProber, ProbeError } from './media-probe.js';
import { isFileHostingLink, rewriteShareLink } from './share-links.js';
import {
  describeUnsupported,
  type MediaFormat,
  type MediaKind,
  SNIFF_BYTES,
  type Sniffed,
  sniff,
  unsafeSvgReason,
} from './sniff.js';

export type { MediaFormat, MediaKind } from './sniff.js';

/** Sizes in SPEC §9 are binary megabytes (MiB). */
export const MB = 1024 * 1024;

/** SPEC §9. */
export const MEDIA_LIMITS = {
  imageBytes: 20 * MB,
  gifBytes: 1 * MB,
  audioBytes: 10 * MB,
  videoBytes: 100 * MB,
  megapixels: 50,
  durationSeconds: 5 * 60,
} as const;

const LARGEST = Math.max(
  MEDIA_LIMITS.imageBytes,
  MEDIA_LIMITS.gifBytes,
  MEDIA_LIMITS.audioBytes,
  MEDIA_LIMITS.videoBytes,
);

export interface FetchedMedia {
  /** The URL as the caller gave it. */
  url: string;
  /** The URL the bytes came from: after share-link rewriting and redirects. */
  finalUrl: string;
  /** The whole file; shared with the cache, so treat it as read-only. */
  bytes: Buffer;
  kind: MediaKind;
  format: MediaFormat;
  mimeType: string;
  /** Images: from the header (absent for an SVG without size). Video: of the first video stream. */
  width?: number;
  height?: number;
  /** Audio and video; absent when no ffprobe is available here. */
  durationSeconds?: number;
  /** Video: whether it has a sound track; absent when no ffprobe is available here. */
  hasAudio?: boolean;
  /** Hex SHA-256 of the bytes. */
  sha256: string;
}

export interface AssetFetcherOptions extends UrlGuardOptions {
  /** Whole fetch, every redirect and the body included. Default 15 000 ms (SPEC §9). */
  timeoutMs?: number;
  /** Default 5 (SPEC §9). */
  maxRedirects?: number;
  /** Byte budget of the LRU of fetched media. Default 128 MiB; 0 turns the cache off. */
  cacheBytes?: number;
  /** How long a fetched file is reused without asking its server again. Default 10 minutes. */
  cacheTtlMs?: number;
  /** Measures audio and video. Default: ffprobe; null: duration unknown. */
  probe?: MediaProber | null;
}

export interface FetchMediaOptions {
  /** The kinds the caller can use (an image element needs an IMAGE); another kind is refused. Default: any. */
  expect?: readonly MediaKind[];
  /**
   * SOURCE values rewrite Google Drive, Dropbox and OneDrive share links to their download form (SPEC §5); brand kit
   * assets refuse file-hosting links (SPEC §11). Default: rewrite.
   */
  shareLinks?: 'rewrite' | 'refuse';
}

export interface AssetFetcher {
  /** The media at a URL, checked against every rule; throws AppError SOURCE_REJECTED naming the URL and the rule. */
  fetch(url: string, options?: FetchMediaOptions): Promise<FetchedMedia>;
  /**
   * A file that arrived whole (uploaded from disk), checked against the same rules as a fetched one: type by content,
   * the byte cap of its type, dimensions, whole decode, SVG content, duration. Throws SOURCE_REJECTED naming `name`.
   */
  inspect(name: string, bytes: Buffer): Promise<Omit<FetchedMedia, 'url' | 'finalUrl'>>;
  /** Bytes held by the cache. */
  cachedBytes(): number;
  clearCache(): void;
}

type Media = Omit<FetchedMedia, 'url'>;

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

const REQUEST_HEADERS = {
  'user-agent': 'Placard media fetcher',
  accept: 'image/*, video/*, audio/*;q=0.9, */*;q=0.1',
  // Sniffing and the byte cap work on the file itself, not on a compressed transfer.
  'accept-encoding': 'identity',
};

export function formatBytes(bytes: number): string {
  if (bytes >= MB) return `${Number((bytes / MB).toFixed(1))} MB`;
  if (bytes >= 1024) return `${Number((bytes / 1024).toFixed(1))} KB`;
  return `${bytes} bytes`;
}

function formatDuration(seconds: number): string {
  const whole = Math.round(seconds);
  return whole >= 60 ? `${Math.floor(whole / 60)} min ${whole % 60} s` : `${whole} s`;
}

/** The byte cap of a sniffed type and the words for it ("GIF images"). */
export function byteCap(media: Sniffed): { bytes: number; of: string } {
  if (media.format === 'gif') return { bytes: MEDIA_LIMITS.gifBytes, of: 'GIF images' };
  if (media.kind === 'IMAGE') return { bytes: MEDIA_LIMITS.imageBytes, of: 'images' };
  if (media.kind === 'AUDIO') return { bytes: MEDIA_LIMITS.audioBytes, of: 'audio' };
  return { bytes: MEDIA_LIMITS.videoBytes, of: 'video' };
}

/** Formats whose spoken name starts with a vowel sound ("an SVG image", "an MP4 video"). */
const AN: ReadonlySet<MediaFormat> = new Set(['svg', 'mp4', 'mkv', 'avi', 'ogg']);

function describe(media: Pick<Sniffed, 'kind' | 'format'>): string {
  const format = media.format.toUpperCase();
  if (media.kind === 'AUDIO') return `${format} audio`;
  return `${AN.has(media.format) ? 'an' : 'a'} ${format} ${media.kind === 'IMAGE' ? 'image' : 'video'}`;
}

/** A size next to a cap, exact to the byte when rounding would make them look equal. */
function sizeAgainst(size: number, cap: number): [string, string] {
  const [a, b] = [formatBytes(size), formatBytes(cap)];
  return a === b ? [`${size} bytes`, `${b} (${cap} bytes)`] : [a, b];
}

const KIND_WORDS: Record<MediaKind, string> = { IMAGE: 'an image', VIDEO: 'a video', AUDIO: 'an audio file' };

function networkReason(error: unknown): string {
  const err = error as NodeJS.ErrnoException;
  switch (err.code) {
    case 'ECONNREFUSED':
      return 'the connection was refused';
    case 'ECONNRESET':
      return err.message === 'aborted'
        ? 'the connection closed before the whole file arrived'
        : 'the connection was reset';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'the host is unreachable';
    case 'ETIMEDOUT':
      return 'the connection timed out';
    case 'HPE_INVALID_CONSTANT':
    case 'HPE_INVALID_HEADER_TOKEN':
      return 'the server did not answer with valid HTTP';
  }
  if (err.code && /CERT|TLS|SSL/.test(err.code)) return `TLS failed (${err.message})`;
  return err.message || String(error);
}

/**
 * Decodes every pixel (every frame of a GIF or WebP) once, so that a truncated or corrupt image is refused here
 * rather than drawn half-grey: headers and dimensions say nothing about the data after them. sharp runs the decode on
 * libuv's pool, off the event loop; the megapixel rule has already been checked from the header, and the pixel limit
 * is passed again so that a header that lies cannot make the decoder allocate more.
 */
async function decodeWhole(origin: string, bytes: Buffer, media: Sniffed): Promise<void> {
  const sharp = await loadSharp();
  try {
    await sharp(bytes, {
      failOn: 'error',
      animated: media.format === 'gif' || media.format === 'webp',
      limitInputPixels: MEDIA_LIMITS.megapixels * 1_000_000,
    })
      .raw()
      .toBuffer();
  } catch (error) {
    throw rejected(origin, `is ${describe(media)} that cannot be decoded whole (${decodeWords(error)})`);
  }
}

/** libvips messages in the user's words where they are known; the first line otherwise. */
function decodeWords(error: unknown): string {
  const text = String((error as Error)?.message ?? error).split('\n')[0];
  if (/premature end|unexpected end|truncated|read error|bad seek|unable to parse|corrupt/i.test(text)) {
    return 'the file is truncated or damaged';
  }
  return text.replace(/^\w+load(_buffer)?: /, '');
}

function contentLength(res: IncomingMessage): number | null {
  const raw = res.headers['content-length'];
  return raw && /^\d+$/.test(raw) ? Number(raw) : null;
}

export function createAssetFetcher(options: AssetFetcherOptions): AssetFetcher {
  const guard = createUrlGuard(options);
  const timeoutMs = options.timeoutMs ?? 15_000;
  const maxRedirects = options.maxRedirects ?? 5;
  const probe = options.probe === undefined ? createFfprobeProber() : options.probe;
  const cacheBytes = options.cacheBytes ?? 128 * MB;
  const cache =
    cacheBytes > 0
      ? new LRUCache<string, Media>({
          maxSize: cacheBytes,
          sizeCalculation: (media) => Math.max(1, media.bytes.length),
          ttl: options.cacheTtlMs ?? 10 * 60_000,
          ...TTL_WITHOUT_TIMER,
        })
      : null;
  const inFlight = new Map<string, Promise<Media>>();

  /** Reads the body, deciding the type from its first bytes and stopping as soon as the type's cap is passed. */
  async function readBody(origin: string, res: IncomingMessage): Promise<{ bytes: Buffer; media: Sniffed }> {
    const declared = contentLength(res);
    if (declared !== null && declared > LARGEST) {
      throw rejected(
        origin,
        `declares ${formatBytes(declared)}, more than the ${formatBytes(LARGEST)} any media may have`,
      );
    }
    const chunks: Buffer[] = [];
    let total = 0;
    let media: Sniffed | null = null;
    let cap = { bytes: LARGEST, of: 'media' };
    const decide = () => {
      const head = Buffer.concat(chunks, total).subarray(0, SNIFF_BYTES);
      media = sniff(head);
      if (!media) {
        throw rejected(
          origin,
          `is not an image, audio or video file this service accepts: ${describeUnsupported(head)}`,
        );
      }
      cap = byteCap(media);
      if (declared !== null && declared > cap.bytes) {
        const [size, limit] = sizeAgainst(declared, cap.bytes);
        throw rejected(origin, `is ${describe(media)} of ${size}, more than the ${limit} allowed for ${cap.of}`);
      }
      return media;
    };
    for await (const chunk of res as AsyncIterable<Buffer>) {
      if (total + chunk.length > cap.bytes) {
        // Never hold more than the cap: the chunk that would pass it is dropped and the download stops here.
        const what = media ? describe(media) : 'the file';
        throw rejected(origin, `${what} is larger than the ${formatBytes(cap.bytes)} allowed for ${cap.of}`);
      }
      chunks.push(chunk);
      total += chunk.length;
      if (!media && total >= SNIFF_BYTES) decide();
    }
    // A connection closed early can end the stream without an error; the declared length is the only witness.
    if (!res.complete || (declared !== null && total !== declared)) {
      const expected = declared !== null ? ` of the ${formatBytes(declared)} its Content-Length declares` : '';
      throw rejected(origin, `ended after ${formatBytes(total)}${expected}: the download was cut short`);
    }
    const sniffed: Sniffed = media ?? decide();
    return { bytes: Buffer.concat(chunks, total), media: sniffed };
  }

  async function download(
    origin: string,
    target: string,
  ): Promise<{ finalUrl: string; bytes: Buffer; media: Sniffed }> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    const signal = controller.signal;
    try {
      let current = target;
      for (let redirects = 0; ; ) {
        const checked = await guard.check(current, { origin, redirected: redirects > 0, signal });
        const res = await guard.open(checked, { headers: REQUEST_HEADERS, signal });
        const status = res.statusCode ?? 0;
        const at = redirects > 0 ? ` (at ${displayUrl(checked.url)})` : '';
        if (REDIRECTS.has(status)) {
          res.destroy();
          const location = res.headers.location;
          if (!location) throw rejected(origin, `answered HTTP ${status} without a Location header${at}`);
          if (redirects >= maxRedirects) {
            throw rejected(origin, `redirects more than ${maxRedirects} times, the most that is followed`);
          }
          try {
            current = new URL(location, checked.url).toString();
          } catch {
            throw rejected(origin, `redirects to an invalid URL${at}`);
          }
          redirects += 1;
          continue;
        }
        if (status < 200 || status > 299 || status === 204 || status === 206) {
          res.destroy();
          throw rejected(origin, `answered HTTP ${status}${at}; the file must be publicly downloadable`);
        }
        try {
          const body = await readBody(origin, res);
          return { finalUrl: checked.url.toString(), ...body };
        } catch (error) {
          // A refusal before the body was read (declared too large, wrong type) must still close the connection.
          res.destroy();
          throw error;
        }
      }
    } catch (error) {
      if (error instanceof AppError) throw error;
      if (signal.aborted) {
        throw rejected(
          origin,
          `took longer than ${Number((timeoutMs / 1000).toFixed(3))} s to download (the time limit)`,
        );
      }
      throw rejected(origin, `cannot be fetched: ${networkReason(error)}`);
    } finally {
      clearTimeout(timer);
    }
  }

  /** The limits that need the whole file: image dimensions, SVG content, audio/video duration. */
  async function measure(
    origin: string,
    bytes: Buffer,
    media: Sniffed,
  ): Promise<Pick<Media, 'width' | 'height' | 'durationSeconds' | 'hasAudio'>> {
    if (media.format === 'svg') {
      const unsafe = unsafeSvgReason(bytes);
      if (unsafe) throw rejected(origin, `${unsafe}; SVG sources may not carry active content`);
      // Vector images are drawn at the element's size, so the megapixel rule does not apply to their nominal size.
      try {
        return imageDimensions(bytes) ?? {};
      } catch {
        return {};
      }
    }
    if (media.kind === 'IMAGE') {
      let size: { width: number; height: number } | null;
      try {
        size = imageDimensions(bytes);
      } catch (error) {
        throw rejected(origin, `is not a valid ${media.format.toUpperCase()} image (${(error as Error).message})`);
      }
      if (!size) throw rejected(origin, `${describe(media)} without dimensions in its header`);
      const megapixels = (size.width * size.height) / 1_000_000;
      if (megapixels > MEDIA_LIMITS.megapixels) {
        throw rejected(
          origin,
          `is ${size.width}x${size.height} pixels (${Number(megapixels.toFixed(1))} megapixels), more than the ${MEDIA_LIMITS.megapixels} megapixels allowed`,
        );
      }
      await decodeWhole(origin, bytes, media);
      return size;
    }
    if (!probe) return {};
    let probed: Awaited<ReturnType<MediaProber>>;
    try {
      probed = await probe(bytes, media.format);
    } catch (error) {
      if (!(error instanceof ProbeError)) throw error;
      throw rejected(origin, `cannot be read as ${describe(media)}: ${error.message}`);
    }
    if (!probed) return {};
    if (media.kind === 'VIDEO' && !probed.hasVideo)
      throw rejected(origin, `is ${describe(media)} without a video stream`);
    if (media.kind === 'AUDIO' && !probed.hasAudio)
      throw rejected(origin, `is ${describe(media)} without an audio stream`);
    const duration = probed.durationSeconds;
    if (duration !== undefined && duration > MEDIA_LIMITS.durationSeconds) {
      throw rejected(
        origin,
        `is ${describe(media)} of ${formatDuration(duration)}, longer than the ${formatDuration(MEDIA_LIMITS.durationSeconds)} allowed`,
      );
    }
    return media.kind === 'VIDEO'
      ? { width: probed.width, height: probed.height, durationSeconds: duration, hasAudio: probed.hasAudio }
      : { durationSeconds: duration };
  }

  async function load(origin: string, target: string): Promise<Media> {
    const { finalUrl, bytes, media } = await download(origin, target);
    const measured = await measure(origin, bytes, media);
    const result: Media = {
      finalUrl,
      bytes,
      kind: media.kind,
      format: media.format,
      mimeType: media.mimeType,
      ...measured,
      sha256: createHash('sha256').update(bytes).digest('hex'),
    };
    for (const key of ['width', 'height', 'durationSeconds'] as const) {
      if (result[key] === undefined) delete result[key];
    }
    cache?.set(target, result);
    return result;
  }

  async function fetchMedia(url: string, fetchOptions: FetchMediaOptions = {}): Promise<FetchedMedia> {
    const policy = fetchOptions.shareLinks ?? 'rewrite';
    if (policy === 'refuse' && isFileHostingLink(url)) {
      throw rejected(
        url,
        'is a file-hosting link (Google Drive, Dropbox or OneDrive); brand kit assets need a direct public link to the file',
      );
    }
    let key: string;
    try {
      key = new URL(policy === 'rewrite' ? rewriteShareLink(url) : url).toString();
    } catch {
      throw rejected(url, 'not a valid URL');
    }
    let media = cache?.get(key);
    if (!media) {
      let pending = inFlight.get(key);
      if (!pending) {
        pending = load(url, key).finally(() => inFlight.delete(key));
        inFlight.set(key, pending);
      }
      media = await pending;
    }
    const expect = fetchOptions.expect;
    if (expect && !expect.includes(media.kind)) {
      const wanted = expect.map((k) => KIND_WORDS[k]).join(' or ');
      throw rejected(url, `is ${describe(media)}, but ${wanted} is needed here`);
    }
    return { url, ...media };
  }

  async function inspect(name: string, bytes: Buffer): Promise<Omit<FetchedMedia, 'url' | 'finalUrl'>> {
    const head = bytes.subarray(0, SNIFF_BYTES);
    const media = sniff(head);
    if (!media) {
      throw rejected(name, `is not an image, audio or video file this service accepts: ${describeUnsupported(head)}`);
    }
    const cap = byteCap(media);
    if (bytes.length > cap.bytes) {
      const [size, limit] = sizeAgainst(bytes.length, cap.bytes);
      throw rejected(name, `is ${describe(media)} of ${size}, more than the ${limit} allowed for ${cap.of}`);
    }
    const measured = await measure(name, bytes, media);
    const result = {
      bytes,
      kind: media.kind,
      format: media.format,
      mimeType: media.mimeType,
      ...measured,
      sha256: createHash('sha256').update(bytes).digest('hex'),
    };
    for (const key of ['width', 'height', 'durationSeconds'] as const) {
      if (result[key] === undefined) delete result[key];
    }
    return result;
  }

  return {
    fetch: fetchMedia,
    inspect,
    cachedBytes: () => cache?.calculatedSize ?? 0,
    clearCache: () => cache?.clear(),
  };
}
