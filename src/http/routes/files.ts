// Downloads of the local-disk BlobStore (SPEC §6): public, but only through a link the service signed. A link that
// is not ours (wrong signature, changed key, expiry or name) is a 404, exactly like a missing file; a genuine link
// past its expiry is a 403 that says so, because the caller can act on it by asking for fresh links.
import { Type } from 'typebox';
import { AppError } from '../../errors.js';
import { type BlobStore, isValidBlobKey } from '../../storage/blobs/blob-store.js';
import { contentDisposition } from '../../storage/blobs/content-disposition.js';
import { verifyFileLink } from '../../storage/blobs/local-disk.js';
import type { ServerKeys } from '../../storage/secrets.js';
import { errors } from '../schemas/common.js';
import type { App } from '../types.js';

export interface FilesRoutesDeps {
  blobs: Pick<BlobStore, 'get'>;
  keys: ServerKeys;
  /** Clock in milliseconds (tests). Default Date.now. */
  now?: () => number;
}

export { contentDisposition, safeFileName } from '../../storage/blobs/content-disposition.js';

export function filesRoutes(app: App, deps: FilesRoutesDeps) {
  const now = deps.now ?? Date.now;

  app.get('/files/*', {
    config: { public: true },
    schema: {
      tags: ['Files'],
      summary: 'Download a stored file through a signed link (export files, thumbnails, brand kit assets)',
      params: Type.Object({ '*': Type.String({ maxLength: 512 }) }),
      querystring: Type.Object({
        exp: Type.String({ pattern: '^[0-9]{1,12}$', description: 'Expiry, Unix seconds' }),
        sig: Type.String({ maxLength: 100, description: 'HMAC signature of key, expiry and name' }),
        name: Type.Optional(Type.String({ maxLength: 1000, description: 'File name offered to the browser' })),
      }),
      response: { ...errors('VALIDATION_FAILED', 'FORBIDDEN', 'NOT_FOUND') },
    },
    handler: async (request, reply) => {
      const key = request.params['*'];
      const { sig, name } = request.query;
      const exp = Number(request.query.exp);
      const nowSeconds = Math.floor(now() / 1000);
      const verdict = isValidBlobKey(key) ? verifyFileLink(deps.keys, { key, exp, sig, name }, nowSeconds) : 'invalid';
      if (verdict === 'invalid') throw new AppError('NOT_FOUND', 'no such file');
      if (verdict === 'expired') {
        throw new AppError(
          'FORBIDDEN',
          `this download link expired at ${new Date(exp * 1000).toISOString()}; ask the API again for a fresh link (for an export: GET /v1/export/{id})`,
        );
      }
      const blob = await deps.blobs.get(key);
      if (!blob) throw new AppError('NOT_FOUND', 'no such file');
      return reply
        .header('content-type', blob.contentType)
        .header('content-length', blob.size)
        .header('content-disposition', contentDisposition(name ?? key.split('/').at(-1)!))
        .header('x-content-type-options', 'nosniff')
        .header('content-security-policy', "default-src 'none'; sandbox")
        .header('cache-control', `private, max-age=${Math.max(0, exp - nowSeconds)}`)
        .send(blob.body);
    },
  });
}
