// The thumbUrl of a design whose thumbnail is still being drawn (issue 15): imports, content changes and exports with
// changes answer before the background job draws it, yet the seed types thumbUrl as a string. The link names the
// design, not a stored file, so it serves the picture as soon as it exists; until then it is a 404 with Retry-After
// (drawing here would put a render on a public request path, which issue 14 took off the answer path). Public but
// signed like /files links, so design hashes cannot be walked.
import { Type } from 'typebox';
import { AppError } from '../../errors.js';
import { verifyPendingThumbnailLink } from '../../services/thumbnail.js';
import type { BlobStore } from '../../storage/blobs/blob-store.js';
import type { ServerKeys } from '../../storage/secrets.js';
import { errors } from '../schemas/common.js';
import type { App } from '../types.js';

/** Seconds a client waits before asking again for a thumbnail not drawn yet: a thumbnail takes a second or two. */
export const THUMBNAIL_RETRY_AFTER_SECONDS = 3;

export interface ThumbnailsRoutesDeps {
  designs: { thumbKeyByHash(hash: string): Promise<{ thumb_key: string | null } | undefined> };
  blobs: Pick<BlobStore, 'get'>;
  keys: ServerKeys;
  /** Clock in milliseconds (tests). Default Date.now. */
  now?: () => number;
}

export function thumbnailsRoutes(app: App, deps: ThumbnailsRoutesDeps) {
  const now = deps.now ?? Date.now;

  app.get('/thumbnails/:file', {
    config: { public: true },
    schema: {
      tags: ['Files'],
      summary: "A design's thumbnail through the signed thumbUrl given while it was still being drawn",
      description:
        'Answers the PNG once the thumbnail exists; until then 404 with `Retry-After` (seconds). A link past its ' +
        'expiry is a 403: list the design again for a fresh thumbUrl.',
      params: Type.Object({ file: Type.String({ pattern: '^[a-z0-9]{1,64}\\.png$' }) }),
      querystring: Type.Object({
        exp: Type.String({ pattern: '^[0-9]{1,12}$', description: 'Expiry, Unix seconds' }),
        sig: Type.String({ maxLength: 100, description: 'HMAC signature of the design hash and expiry' }),
      }),
      response: { ...errors('VALIDATION_FAILED', 'FORBIDDEN', 'NOT_FOUND') },
    },
    handler: async (request, reply) => {
      const designHash = request.params.file.slice(0, -'.png'.length);
      const exp = Number(request.query.exp);
      const nowSeconds = Math.floor(now() / 1000);
      const verdict = verifyPendingThumbnailLink(deps.keys, { designHash, exp, sig: request.query.sig }, nowSeconds);
      if (verdict === 'invalid') throw new AppError('NOT_FOUND', 'no such thumbnail');
      if (verdict === 'expired') {
        throw new AppError(
          'FORBIDDEN',
          `this thumbnail link expired at ${new Date(exp * 1000).toISOString()}; list the design again (GET /v1/templates) for a fresh thumbUrl`,
        );
      }
      const design = await deps.designs.thumbKeyByHash(designHash);
      if (!design) throw new AppError('NOT_FOUND', `design ${designHash} no longer exists`);
      const blob = design.thumb_key ? await deps.blobs.get(design.thumb_key) : undefined;
      if (!blob) {
        throw new AppError(
          'NOT_FOUND',
          `the thumbnail of design ${designHash} is still being drawn; ask again in ${THUMBNAIL_RETRY_AFTER_SECONDS} seconds (Retry-After)`,
          { headers: { 'Retry-After': String(THUMBNAIL_RETRY_AFTER_SECONDS) } },
        );
      }
      return (
        reply
          .header('content-type', blob.contentType)
          .header('content-length', blob.size)
          .header('x-content-type-options', 'nosniff')
          .header('content-security-policy', "default-src 'none'; sandbox")
          // The design's thumbnail changes with the design while the link stays: caches ask again each time.
          .header('cache-control', 'private, no-cache')
          .send(blob.body)
      );
    },
  });
}
