// Downloads a font file from a public link for POST /v1/brandkit/uploadFonts, through the same SSRF guard as every
// other untrusted URL (url-guard.ts: every hop checked, redirects followed by hand) with the font limits: 10 MB read
// while streaming, one overall timeout. The media fetcher (assets.ts) refuses anything that is not an image, audio
// or video file, so fonts have this small sibling; what the bytes are is decided afterwards by brand-font-file.ts.
import type { IncomingMessage } from 'node:http';
import { AppError } from '../../errors.js';
import { createUrlGuard, displayUrl, rejected, type UrlGuardOptions } from '../../net/url-guard.js';
import { MAX_FONT_BYTES } from '../text/brand-font-file.js';
import { isFileHostingLink } from './share-links.js';

export interface FontFetcherOptions extends UrlGuardOptions {
  /** Whole download, redirects included. Default 15 000 ms (SPEC §9). */
  timeoutMs?: number;
  /** Default 5. */
  maxRedirects?: number;
}

export interface FontFetcher {
  /** The bytes at `url` and the URL they came from; AppError SOURCE_REJECTED names the URL and the rule. */
  fetch(url: string): Promise<{ bytes: Buffer; finalUrl: string }>;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const HEADERS = { 'user-agent': 'Placard font fetcher', accept: 'font/*, application/*;q=0.5, */*;q=0.1' };

async function readCapped(origin: string, res: IncomingMessage): Promise<Buffer> {
  const declared = Number(res.headers['content-length'] ?? Number.NaN);
  if (declared > MAX_FONT_BYTES) {
    throw rejected(origin, `declares ${(declared / 1024 / 1024).toFixed(1)} MB; a font file may be at most 10 MB`);
  }
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of res as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (total > MAX_FONT_BYTES) throw rejected(origin, 'is larger than the 10 MB a font file may have');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, total);
}

export function createFontFetcher(options: FontFetcherOptions): FontFetcher {
  const guard = createUrlGuard(options);
  const timeoutMs = options.timeoutMs ?? 15_000;
  const maxRedirects = options.maxRedirects ?? 5;
  return {
    async fetch(url) {
      if (isFileHostingLink(url)) {
        throw rejected(
          url,
          'is a file-hosting link (Google Drive, Dropbox or OneDrive); a direct public link is needed',
        );
      }
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), timeoutMs);
      const signal = controller.signal;
      try {
        let current = url;
        for (let redirects = 0; ; ) {
          const checked = await guard.check(current, { origin: url, redirected: redirects > 0, signal });
          const res = await guard.open(checked, { headers: HEADERS, signal });
          const status = res.statusCode ?? 0;
          if (REDIRECTS.has(status)) {
            res.destroy();
            const location = res.headers.location;
            if (!location || redirects >= maxRedirects) {
              throw rejected(url, location ? `redirects more than ${maxRedirects} times` : 'redirects nowhere');
            }
            current = new URL(location, checked.url).toString();
            redirects += 1;
            continue;
          }
          if (status < 200 || status > 299 || status === 204 || status === 206) {
            res.destroy();
            const at = redirects > 0 ? ` (at ${displayUrl(checked.url)})` : '';
            throw rejected(url, `answered HTTP ${status}${at}; the file must be publicly downloadable`);
          }
          try {
            return { bytes: await readCapped(url, res), finalUrl: checked.url.toString() };
          } catch (error) {
            res.destroy();
            throw error;
          }
        }
      } catch (error) {
        if (error instanceof AppError) throw error;
        if (signal.aborted) throw rejected(url, `took longer than ${timeoutMs / 1000} s to download`);
        throw rejected(url, `cannot be fetched: ${(error as Error).message}`);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
