// Render URLs (issue 23, docs/render-urls.md): `GET /r/{templateHash}[/{size}].{ext}?…&s=…` answers the template's
// image with the query's element changes, signed by the team's render-URL secret instead of a token. The order of the
// checks is the contract: format (400), design (404), signature and expiry (403), settings and changes (400), budget
// (400), SOURCE addresses (400), rate and concurrency (429) — and only then a render, on the render threads.
// A variant is named by its key (design, revision or version, size, format, settings, changes): the strong ETag comes
// from it, so a 304 needs no render and no storage; the image is then looked for in memory (an LRU bounded in bytes),
// then in the BlobStore (both shapes), and rendered at most once at a time per key (concurrent requests share it).
import { createHash, randomBytes } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { RenderUrlSettings } from '../config.js';
import type { Actor } from '../domain/actor.js';
import { canonicalJson } from '../domain/canonical.js';
import { applyChanges, type ElementChangesInput } from '../domain/changes.js';
import type { DesignDocument } from '../domain/design.schema.js';
import { signatureMatches, signedPathAndQuery } from '../domain/render-url-signature.js';
import type { FontLookup } from '../elements/element-kind.js';
import { AppError } from '../errors.js';
import { RenderTimeoutError } from '../formats/pool.js';
import {
  FORMATS,
  type FormatType,
  findFormat,
  type RenderJob,
  formatOf as registeredFormat,
} from '../formats/registry.js';
import { teamGroup } from '../jobs/fair.js';
import { displayUrl, type UrlGuard } from '../net/url-guard.js';
import type { BlobStore } from '../storage/blobs/blob-store.js';
import type { RenderUrlDesignHead, RenderUrlRepository } from '../storage/db/repositories/render-urls.repository.js';
import { openSecret, type ServerKeys, sealSecret } from '../storage/secrets.js';
import type { DesignService } from './design.service.js';
import { documentOf } from './design.service.js';
import { GateFullError, type RenderGate } from './render-gate.js';
import {
  applyQueryChanges,
  changeParams,
  changesOfParams,
  type RenderUrlSettings as LinkSettings,
  paramsOfChanges,
  parseQuery,
  queryError,
  settingsOf,
} from './render-url-params.js';

/**
 * The formats a link may name by its extension, from the format registry: still pictures of one slide (PNG, JPG, WEBP
 * and AVIF today), each with its aliases (`.jpeg`). Video, PDF and HTML5 packages are exports, not images of a link.
 */
export const RENDER_URL_FORMATS = FORMATS.filter(
  (format) => format.files === 'perSlide' && format.budget === 'still' && format.thumbnail,
);
const EXTENSIONS = RENDER_URL_FORMATS.flatMap((format) => [format.type, ...format.aliases]);

interface LinkFormat {
  format: FormatType;
  extension: string;
  contentType: string;
  /** Whether `quality` applies (a setting that does not apply is ignored, SPEC §6). */
  quality: boolean;
}

function linkFormat(extension: string): LinkFormat | undefined {
  const format = findFormat(extension);
  if (!format || !(RENDER_URL_FORMATS as readonly unknown[]).includes(format)) return undefined;
  return {
    format: format.type,
    extension: format.extension,
    contentType: format.contentType,
    quality: 'quality' in (format.settings as unknown as { properties: object }).properties,
  };
}

/** What the render threads are asked for: a job of the format registry with the format's own settings. */
export type RenderUrlJob = RenderJob;

/** Bumped when the renderer's output for the same input changes, so that stored variants are not served again. */
const VARIANT_VERSION = 1;
const SECRET_TTL_MS = 10_000;
const ONE_YEAR = 365 * 24 * 3600;
const MAX_OUTPUT_SIDE = 16_000;

export type RenderUrlOutcome = 'hit' | 'miss' | 'refused';

export interface RenderUrlServiceDeps {
  repo: Pick<RenderUrlRepository, 'find' | 'ensure' | 'rotate' | 'designHead' | 'designDocument' | 'versionDocument'>;
  designs: Pick<DesignService, 'requireDesign'>;
  keys: ServerKeys;
  blobs: Pick<BlobStore, 'get' | 'put'>;
  /**
   * Renders on the render threads (formats/pool.ts): `budgetMs` counts from when a thread takes the render, `group`
   * takes turns with the team's exports and other teams' renders.
   */
  render(job: RenderUrlJob, options: { budgetMs: number; group: string }): Promise<Uint8Array>;
  /** The SSRF guard (net/url-guard.ts): SOURCE values are checked before a render (the render thread checks again). */
  sourceGuard: Pick<UrlGuard, 'check'>;
  gate: RenderGate;
  fonts: FontLookup;
  settings: RenderUrlSettings;
  publicUrl: string;
  /** The rate limiter seam (http/plugins/rate-limit.ts), keyed `team:<id>` for renders and `ip:<address>` for refusals. */
  rateLimit?: (key: string) => Promise<{ allowed: boolean; limit: number; resetSeconds: number }>;
  onOutcome?: (outcome: RenderUrlOutcome, source: string) => void;
  log?: { warn(object: object, message: string): void };
  /** Clock in milliseconds (tests). Default Date.now. */
  now?: () => number;
}

export interface RenderUrlRequest {
  /** The path as requested, which is what was signed: `/r/abc1234.png`, `/r/abc1234/300x250.png`. */
  path: string;
  hash: string;
  size: string | null;
  extension: string;
  /** The raw query string, without `?`. */
  query: string;
  ifNoneMatch?: string;
  /** The client's address: refused links count against it. */
  client: string;
}

export interface RenderUrlAnswer {
  status: 200 | 304;
  body: Uint8Array | null;
  contentType: string;
  etag: string;
  cacheControl: string;
  /** What answered: etag (304), memory, store, render, or shared (a render another request started). */
  source: 'etag' | 'memory' | 'store' | 'render' | 'shared';
}

interface TeamSecrets {
  loadedAt: number;
  list: Array<{ secret: string; validUntil: number }>;
}

function newRenderUrlSecret(): string {
  return `prs_${randomBytes(32).toString('base64url')}`;
}

const secretContext = (teamId: number) => `render-url-secret:${teamId}`;

function etagMatches(header: string, etag: string): boolean {
  // If-None-Match compares weakly (RFC 9110 §13.1.2): W/"x" matches "x".
  return header
    .split(',')
    .map((tag) => tag.trim().replace(/^W\//, ''))
    .some((tag) => tag === '*' || tag === etag);
}

function sizeIndexOf(doc: DesignDocument, size: string | null, what: string): number {
  if (size === null) return 0;
  const byHash = doc.sizes.findIndex((s) => s.hash === size);
  if (byHash !== -1) return byHash;
  const wxh = /^(\d{1,5})x(\d{1,5})$/.exec(size);
  const byDimensions = wxh ? doc.sizes.findIndex((s) => s.width === Number(wxh[1]) && s.height === Number(wxh[2])) : -1;
  if (byDimensions !== -1) return byDimensions;
  const known = doc.sizes.map((s) => `${s.hash} (${s.width}x${s.height})`).join(', ');
  throw new AppError('NOT_FOUND', `${what}: ${size} is not a size of the design; its sizes: ${known}`);
}

export function createRenderUrlService(deps: RenderUrlServiceDeps) {
  const now = deps.now ?? Date.now;
  const memory =
    deps.settings.memoryCacheBytes > 0
      ? new LRUCache<string, Uint8Array>({
          maxSize: deps.settings.memoryCacheBytes,
          sizeCalculation: (bytes) => Math.max(1, bytes.length),
        })
      : null;
  const documents = new LRUCache<string, DesignDocument>({ max: 64 });
  const secrets = new Map<number, TeamSecrets>();
  const inFlight = new Map<string, Promise<Uint8Array>>();
  /** Images being written to the store after their answer: a stopping process lets them finish (`stored()`). */
  const storing = new Set<Promise<void>>();

  async function secretsOf(teamId: number, fresh: boolean): Promise<TeamSecrets> {
    const cached = secrets.get(teamId);
    if (cached && !fresh && now() - cached.loadedAt < SECRET_TTL_MS) return cached;
    const row = await deps.repo.find(teamId);
    const list: TeamSecrets['list'] = [];
    if (row) {
      list.push({ secret: openSecret(deps.keys, row.secret_sealed, secretContext(teamId)), validUntil: Infinity });
      if (row.previous_sealed && row.previous_valid_until) {
        list.push({
          secret: openSecret(deps.keys, row.previous_sealed, secretContext(teamId)),
          validUntil: Date.parse(row.previous_valid_until),
        });
      }
    }
    const loaded = { loadedAt: now(), list };
    secrets.set(teamId, loaded);
    return loaded;
  }

  async function verify(teamId: number, path: string, params: ReadonlyMap<string, string>): Promise<void> {
    const signature = params.get('s');
    if (!signature) {
      throw new AppError(
        'INVALID_SIGNATURE',
        'this render URL is not signed: the s parameter is missing (sign it as docs/render-urls.md says, or ask POST /v1/renderUrls)',
      );
    }
    const matches = (loaded: TeamSecrets) =>
      loaded.list.some(
        ({ secret, validUntil }) => validUntil > now() && signatureMatches(secret, path, params, signature),
      );
    let loaded = await secretsOf(teamId, false);
    // A secret rotated by another process: look once more, at most once a second per team.
    if (!matches(loaded) && now() - loaded.loadedAt > 1000) loaded = await secretsOf(teamId, true);
    if (!matches(loaded)) {
      throw new AppError(
        'INVALID_SIGNATURE',
        'the signature s does not match this path and query: a parameter was changed after signing, or the secret that signed it was rotated out',
      );
    }
    const exp = params.get('exp');
    if (exp !== undefined && /^\d{1,12}$/.test(exp) && Number(exp) * 1000 <= now()) {
      throw new AppError(
        'LINK_EXPIRED',
        `this render URL expired at ${new Date(Number(exp) * 1000).toISOString()} (exp); sign a new one`,
      );
    }
  }

  function formatOf(extension: string, field: string): LinkFormat {
    const format = linkFormat(extension);
    if (!format) {
      throw new AppError(
        'VALIDATION_FAILED',
        `${field}: ${JSON.stringify(extension)} is not an image format of render URLs; use ${EXTENSIONS.join(', ')}`,
      );
    }
    return format;
  }

  function variantKey(
    head: RenderUrlDesignHead,
    request: { size: string | null },
    format: LinkFormat,
    settings: LinkSettings,
    changes: Array<[string, string]>,
  ): string {
    return createHash('sha256')
      .update(
        canonicalJson({
          v: VARIANT_VERSION,
          design: head.id,
          revision: settings.version ? null : head.revision,
          version: settings.version,
          size: request.size,
          format: format.format,
          scale: settings.scale,
          quality: format.quality ? settings.quality : null,
          slide: settings.slide,
          changes,
        }),
      )
      .digest('base64url');
  }

  function cacheControlOf(settings: LinkSettings): string {
    const left = settings.exp === null ? Infinity : Math.max(0, settings.exp - Math.floor(now() / 1000));
    if (settings.version && left === Infinity) return `public, max-age=${ONE_YEAR}, immutable`;
    const maxAge = Math.min(settings.version ? ONE_YEAR : deps.settings.maxAgeSeconds, left);
    return `public, max-age=${maxAge}`;
  }

  async function documentFor(
    head: RenderUrlDesignHead,
    version: string | null,
    field: string,
  ): Promise<DesignDocument> {
    const key = version ? `${head.id}:v:${version}` : `${head.id}:${head.revision}`;
    const cached = documents.get(key);
    if (cached) return cached;
    const text = version
      ? await deps.repo.versionDocument(head.id, version)
      : await deps.repo.designDocument(head.id, head.revision);
    if (text === undefined) {
      if (version) throw new AppError('NOT_FOUND', `${field}: design ${head.hash} has no version ${version}`);
      throw new AppError('UNAVAILABLE', `design ${head.hash} changed while this link was answered; retry`, {
        headers: { 'Retry-After': '1' },
      });
    }
    const doc = documentOf({ document: text });
    documents.set(key, doc);
    return doc;
  }

  /** Everything a link is checked against before a render: the size, the slide, the budget, the changes, SOURCEs. */
  async function prepare(
    doc: DesignDocument,
    size: string | null,
    settings: LinkSettings,
    changes: Array<[string, string]>,
    sizeField: string,
  ) {
    const sizeIndex = sizeIndexOf(doc, size, sizeField);
    const chosen = doc.sizes[sizeIndex];
    if (settings.slide >= chosen.slides.length) {
      throw queryError(
        'slide',
        `size ${chosen.width}x${chosen.height} has ${chosen.slides.length} slide(s), counted from 0; received ${settings.slide}`,
      );
    }
    const width = Math.max(1, Math.round(chosen.width * settings.scale));
    const height = Math.max(1, Math.round(chosen.height * settings.scale));
    if (Math.max(width, height) > MAX_OUTPUT_SIDE) {
      throw queryError(
        'scale',
        `scale ${settings.scale} makes ${chosen.width}x${chosen.height} ${width}x${height}; scale × side may be at most ${MAX_OUTPUT_SIDE} px`,
      );
    }
    const megapixels = (width * height) / 1e6;
    if (megapixels > deps.settings.maxMegapixels) {
      throw queryError(
        'scale',
        `scale ${settings.scale} makes ${chosen.width}x${chosen.height} ${width}x${height} (${megapixels.toFixed(1)} megapixels); a render URL may ask for at most ${deps.settings.maxMegapixels} megapixels`,
      );
    }
    const parsed = changesOfParams(doc, changes);
    const changed = applyQueryChanges(doc, parsed, deps.fonts);
    const signal = AbortSignal.timeout(deps.settings.sourceTimeoutMs);
    await Promise.all(
      parsed.sources.map(async ({ param, url }) => {
        try {
          await deps.sourceGuard.check(url, { signal });
        } catch (error) {
          if (error instanceof AppError) throw queryError(param, error.message);
          if (signal.aborted)
            throw queryError(
              param,
              `the address of ${url} could not be checked within ${deps.settings.sourceTimeoutMs} ms`,
            );
          throw error;
        }
      }),
    );
    return { sizeIndex, changed, sources: parsed.sources };
  }

  async function readStored(key: string): Promise<Uint8Array | null> {
    const blob = await deps.blobs.get(key);
    if (!blob) return null;
    const chunks: Buffer[] = [];
    for await (const chunk of blob.body) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }

  async function renderLimited(teamId: number, job: RenderUrlJob): Promise<Uint8Array> {
    if (deps.rateLimit) {
      const decision = await deps.rateLimit(`team:${teamId}`);
      if (!decision.allowed) {
        throw new AppError(
          'RATE_LIMITED',
          `render URL renders are limited to ${decision.limit} per window for the team (cached images are not); retry in ${decision.resetSeconds} s`,
          { headers: { 'Retry-After': String(decision.resetSeconds) } },
        );
      }
    }
    try {
      return await deps.gate.run(teamId, async () => {
        const budgetMs = deps.settings.renderTimeoutSeconds * 1000;
        try {
          return await deps.render(job, { budgetMs, group: teamGroup(teamId) });
        } catch (error) {
          if (error instanceof RenderTimeoutError) {
            throw new AppError(
              'UNAVAILABLE',
              `the render took longer than the ${deps.settings.renderTimeoutSeconds} s budget of a render URL`,
              { headers: { 'Retry-After': '5' } },
            );
          }
          throw error;
        }
      });
    } catch (error) {
      if (!(error instanceof GateFullError)) throw error;
      throw new AppError(
        'RATE_LIMITED',
        `the team has ${error.waiting} render URL renders waiting already; retry in a second`,
        {
          headers: { 'Retry-After': '1' },
        },
      );
    }
  }

  async function answer(request: RenderUrlRequest): Promise<RenderUrlAnswer> {
    const format = formatOf(request.extension, 'extension');
    const head = await deps.repo.designHead(request.hash);
    if (!head) throw new AppError('NOT_FOUND', `templateHash: no design ${request.hash}`);
    const params = parseQuery(request.query);
    await verify(head.team_id, request.path, params);
    const settings = settingsOf(params);
    const changes = changeParams(params);
    const key = variantKey(head, request, format, settings, changes);
    const etag = `"${key}"`;
    const base = { contentType: format.contentType, etag, cacheControl: cacheControlOf(settings) };
    if (request.ifNoneMatch && etagMatches(request.ifNoneMatch, etag)) {
      return { ...base, status: 304, body: null, source: 'etag' };
    }
    const remembered = memory?.get(key);
    if (remembered) return { ...base, status: 200, body: remembered, source: 'memory' };

    const shared = inFlight.get(key);
    if (shared) return { ...base, status: 200, body: await shared, source: 'shared' };
    let source: RenderUrlAnswer['source'] = 'store';
    const blobKey = `render-urls/${head.hash}/${key}.${format.extension}`;
    const produce = async () => {
      const stored = await readStored(blobKey);
      if (stored) return stored;
      source = 'render';
      const doc = await documentFor(head, settings.version, 'version');
      const { sizeIndex, changed, sources } = await prepare(doc, request.size, settings, changes, 'size');
      const given = {
        scale: settings.scale,
        ...(format.quality && settings.quality !== null ? { quality: settings.quality } : {}),
      };
      const bytes = await renderLimited(head.team_id, {
        document: changed,
        sizeIndex,
        slideIndex: settings.slide,
        format: format.format,
        settings: (registeredFormat(format.format).defaults as (given: object) => unknown)(given),
        fetchTimeoutMs: deps.settings.sourceTimeoutMs,
      } as RenderJob).catch((error: unknown) => {
        // A SOURCE of the link that cannot be used (not found, not an image, too slow) is the link's fault: 400
        // naming its parameter. One of the template's own sources stays a 422 SOURCE_REJECTED.
        const culprit =
          error instanceof AppError && error.code === 'SOURCE_REJECTED'
            ? sources.find(({ url }) => error.message.startsWith(displayUrl(url)) || error.message.includes(url))
            : undefined;
        throw culprit ? queryError(culprit.param, (error as AppError).message) : error;
      });
      // The answer does not wait for storage: a failed put only costs a render after the memory tier forgets it.
      const put = deps.blobs.put(blobKey, bytes, format.contentType).then(
        () => undefined,
        (error) => deps.log?.warn({ err: error, key: blobKey }, 'render URL: storing the image failed'),
      );
      storing.add(put);
      put.finally(() => storing.delete(put));
      return bytes;
    };
    const pending = produce();
    inFlight.set(key, pending);
    try {
      const body = await pending;
      memory?.set(key, body);
      return { ...base, status: 200, body, source };
    } finally {
      inFlight.delete(key);
    }
  }

  async function secretNode(
    teamId: number,
    row: { secret_sealed: string; created_at: string; previous_valid_until: string | null },
  ) {
    const previousUntil =
      row.previous_valid_until && Date.parse(row.previous_valid_until) > now() ? row.previous_valid_until : null;
    return {
      secret: openSecret(deps.keys, row.secret_sealed, secretContext(teamId)),
      createdAt: row.created_at,
      previousValidUntil: previousUntil,
    };
  }

  async function currentRow(teamId: number) {
    return (
      (await deps.repo.find(teamId)) ??
      (await deps.repo.ensure(
        teamId,
        sealSecret(deps.keys, newRenderUrlSecret(), secretContext(teamId)),
        new Date(now()).toISOString(),
      ))
    );
  }

  return {
    /**
     * Resolves once the images being stored after their answer are stored (or have failed): a process that stops
     * waits for them before it closes its object store, which would otherwise cut a put off halfway, retries included.
     */
    async stored(): Promise<void> {
      while (storing.size > 0) await Promise.all(storing);
    },
    /** GET /r/…: the image of a signed link, or the AppError that refuses it. */
    async serve(request: RenderUrlRequest): Promise<RenderUrlAnswer> {
      try {
        const result = await answer(request);
        deps.onOutcome?.(result.source === 'render' ? 'miss' : 'hit', result.source);
        return result;
      } catch (error) {
        const status = error instanceof AppError ? error.status : 500;
        deps.onOutcome?.('refused', String(status));
        // Refused signatures spend the address's budget, so guessing signatures is as slow as guessing tokens.
        if (status === 403 && deps.rateLimit) {
          const decision = await deps.rateLimit(`ip:${request.client}`);
          if (!decision.allowed) {
            throw new AppError(
              'RATE_LIMITED',
              `too many refused render URLs from this address; retry in ${decision.resetSeconds} s`,
              {
                headers: { 'Retry-After': String(decision.resetSeconds) },
              },
            );
          }
        }
        throw error;
      }
    },

    /** GET /v1/renderUrls/secret: the team's secret, made on first use. */
    async secret(actor: Actor) {
      return secretNode(actor.teamId, await currentRow(actor.teamId));
    },

    /** POST /v1/renderUrls/secret/rotate: a new secret; the previous one keeps working for the configured overlap. */
    async rotateSecret(actor: Actor) {
      await currentRow(actor.teamId);
      const at = now();
      const row = await deps.repo.rotate(
        actor.teamId,
        sealSecret(deps.keys, newRenderUrlSecret(), secretContext(actor.teamId)),
        new Date(at).toISOString(),
        new Date(at + deps.settings.secretOverlapSeconds * 1000).toISOString(),
      );
      secrets.delete(actor.teamId);
      return secretNode(actor.teamId, row);
    },

    /** POST /v1/renderUrls: a signed link, checked as the link itself will be (an invalid one is never handed out). */
    async createUrl(
      actor: Actor,
      body: {
        templateHash: string;
        format: string;
        size?: string;
        elementsChanges?: ElementChangesInput[];
        scale?: number;
        quality?: number;
        slide?: number;
        versionId?: string;
        expiresAt?: string;
      },
    ) {
      const design = await deps.designs.requireDesign(actor, body.templateHash, 'export:create', 'templateHash');
      const format = formatOf(body.format.toLowerCase(), 'format');
      const head = { id: design.id, hash: design.hash, team_id: design.team_id, revision: design.revision };
      const doc = body.versionId ? await documentFor(head, body.versionId, 'versionId') : documentOf(design);
      // The body's changes fail as export-with-changes fails (422 naming elementsChanges[i]).
      applyChanges(doc, body.elementsChanges ?? [], undefined, deps.fonts);
      const params = paramsOfChanges(doc, body.elementsChanges ?? []);
      const settings: LinkSettings = {
        scale: body.scale ?? 1,
        quality: body.quality ?? null,
        slide: body.slide ?? 0,
        version: body.versionId ?? null,
        exp: null,
      };
      if (body.scale !== undefined) params.push(['scale', String(body.scale)]);
      if (body.quality !== undefined && format.quality) params.push(['quality', String(body.quality)]);
      if (body.slide !== undefined) params.push(['slide', String(body.slide)]);
      if (body.versionId !== undefined) params.push(['version', body.versionId]);
      if (body.expiresAt !== undefined) {
        const exp = Math.ceil(Date.parse(body.expiresAt) / 1000);
        if (!(exp * 1000 > now())) {
          throw new AppError('VALIDATION_FAILED', `expiresAt: must be in the future, received ${body.expiresAt}`);
        }
        settings.exp = exp;
        params.push(['exp', String(exp)]);
      }
      try {
        await prepare(doc, body.size ?? null, settings, changeParams(new Map(params)), 'size');
      } catch (error) {
        // Named by the body's fields, not by the link's parameters the caller never wrote.
        if (error instanceof AppError && error.code === 'VALIDATION_FAILED') {
          throw new AppError('VALIDATION_FAILED', error.message.replace(/ \(query\)/, ''), {});
        }
        throw error;
      }
      const extension = format.extension;
      const path = body.size ? `/r/${design.hash}/${body.size}.${extension}` : `/r/${design.hash}.${extension}`;
      const { secret } = await secretNode(actor.teamId, await currentRow(actor.teamId));
      return {
        url: `${deps.publicUrl}${signedPathAndQuery(secret, path, params)}`,
        expiresAt: settings.exp === null ? null : new Date(settings.exp * 1000).toISOString(),
        cacheControl: cacheControlOf(settings),
      };
    },
  };
}

export type RenderUrlService = ReturnType<typeof createRenderUrlService>;
