// A batch's rows from a feed URL (issue 22): fetched through the SSRF guard like every other URL a user gives
// (net/url-guard.ts: http(s) only, every address of every redirect hop checked and pinned, private addresses refused
// unless PLACARD_ALLOWED_PRIVATE_HOSTS lists the host), with one overall time limit and the batch byte limit enforced
// while reading — the body is never read past it. What the body is comes from its first bytes and content type
// (CSV, TSV or RSS/Atom XML); the rows library parses it. Every refusal is the submit's UNPROCESSABLE naming the field,
// so a feed that cannot be used refuses the batch before anything is stored.

import type { IncomingMessage } from 'node:http';
import { BATCH_LIMITS, parseDelimitedRows, parseFeedXml, type RowTable, sniffRowFormat } from '../domain/batch/rows.js';
import { AppError } from '../errors.js';
import { displayUrl, type UrlGuard } from '../net/url-guard.js';

export interface RowSourceDeps {
  /** The deployment's guard: createUrlGuard({ allowPrivateUrls, allowedPrivateHosts }) from the config. */
  guard: Pick<UrlGuard, 'check' | 'open'>;
  /** The whole fetch, redirects and body included. Default ROW_SOURCE_TIMEOUT_MS. */
  timeoutMs?: number;
  /** Default 5, as the media and font fetchers. */
  maxRedirects?: number;
  /** Default BATCH_LIMITS.maxFileBytes; smaller only in tests. */
  maxBytes?: number;
}

export interface RowSource extends RowTable {
  format: 'csv' | 'tsv' | 'xml';
  /** Where the bytes came from, after redirects. */
  finalUrl: string;
  bytes: number;
}

/** A 50 MiB feed needs time on a slow link; longer than this and the submit request would outlive its client. */
export const ROW_SOURCE_TIMEOUT_MS = 30_000;

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const HEADERS = {
  'user-agent': 'Placard feed fetcher',
  accept:
    'text/csv, text/tab-separated-values, application/rss+xml, application/atom+xml, application/xml;q=0.9, text/xml;q=0.9, text/plain;q=0.5, */*;q=0.1',
};

function mib(bytes: number): string {
  return `${Number((bytes / 1024 / 1024).toFixed(1))} MiB`;
}

/** Reads the body up to `limit` bytes and stops there (the socket is destroyed): a larger feed is refused. */
async function readCapped(
  res: IncomingMessage,
  limit: number,
  tooLarge: (detail: string) => AppError,
): Promise<Buffer> {
  const declared = Number(res.headers['content-length'] ?? Number.NaN);
  if (declared > limit) throw tooLarge(`declares ${declared} bytes`);
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of res as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (total > limit) throw tooLarge(`sent more than ${limit} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, total);
}

function preview(bytes: Buffer): string {
  const text = bytes.subarray(0, 200).toString('utf8').replace(/\s+/g, ' ').trim().slice(0, 40);
  return JSON.stringify(text);
}

/**
 * The rows at `url`; `field` names the request field in every refusal (`feedUrl: … took longer than 30 s`).
 * Not-2xx answers, a body that is not CSV, TSV or a feed, and every rule of the guard and of the rows library refuse
 * with UNPROCESSABLE.
 */
export async function fetchRowSource(url: string, deps: RowSourceDeps, field: string): Promise<RowSource> {
  const timeoutMs = deps.timeoutMs ?? ROW_SOURCE_TIMEOUT_MS;
  const maxRedirects = deps.maxRedirects ?? 5;
  const limit = deps.maxBytes ?? BATCH_LIMITS.maxFileBytes;
  const fail = (message: string) => new AppError('UNPROCESSABLE', `${field}: ${message}`);
  let shown: string;
  try {
    shown = displayUrl(url);
  } catch {
    shown = url.slice(0, 200);
  }

  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  const signal = controller.signal;
  let fetched: { bytes: Buffer; contentType: string | undefined; finalUrl: string };
  try {
    let current = url;
    for (let redirects = 0; ; ) {
      const checked = await deps.guard.check(current, { origin: url, redirected: redirects > 0, signal });
      const res = await deps.guard.open(checked, { headers: HEADERS, signal });
      const status = res.statusCode ?? 0;
      const at = redirects > 0 ? ` (at ${displayUrl(checked.url)})` : '';
      if (REDIRECTS.has(status)) {
        res.destroy();
        const location = res.headers.location;
        if (!location) throw fail(`${shown} redirects nowhere (HTTP ${status} without a Location)${at}`);
        if (redirects >= maxRedirects)
          throw fail(`${shown} redirects more than ${maxRedirects} times, the most that is followed`);
        try {
          current = new URL(location, checked.url).toString();
        } catch {
          throw fail(`${shown} redirects to an invalid URL${at}`);
        }
        redirects += 1;
        continue;
      }
      if (status < 200 || status > 299 || status === 204 || status === 206) {
        res.destroy();
        throw fail(`${shown} answered HTTP ${status}${at}; the feed must be publicly downloadable`);
      }
      try {
        const bytes = await readCapped(res, limit, (detail) =>
          fail(
            `${shown} ${detail}${at}, over the limit of ${limit} bytes (${mib(limit)}) for a batch; split the feed into several`,
          ),
        );
        fetched = { bytes, contentType: res.headers['content-type'], finalUrl: checked.url.toString() };
      } finally {
        res.destroy();
      }
      break;
    }
  } catch (error) {
    if (signal.aborted)
      throw fail(`${shown} took longer than ${Number((timeoutMs / 1000).toFixed(3))} s to download (the time limit)`);
    if (error instanceof AppError) {
      // The guard's SOURCE_REJECTED names the URL and the rule; at submit it is the field that cannot be used.
      if (error.code === 'SOURCE_REJECTED') throw fail(error.message);
      throw error;
    }
    throw fail(`${shown} cannot be fetched: ${(error as Error).message}`);
  } finally {
    clearTimeout(timer);
  }

  const { bytes, contentType, finalUrl } = fetched;
  const format = sniffRowFormat(contentType, bytes);
  if (!format)
    throw fail(
      `${shown} is not a CSV, TSV or RSS/Atom feed (content type ${contentType ? JSON.stringify(contentType) : 'none'}, it starts with ${preview(bytes)})`,
    );
  const table =
    format === 'xml'
      ? parseFeedXml(bytes, { field })
      : parseDelimitedRows(bytes, { field, delimiter: format === 'tsv' ? '\t' : undefined });
  return { ...table, format, finalUrl, bytes: bytes.length };
}
