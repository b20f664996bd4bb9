// Render URLs (issue 23, docs/render-urls.md): the public image route `GET /r/{templateHash}[/{size}].{ext}`, signed
// by the team's secret instead of a token, and the /v1 routes that manage the secret and sign links for a client.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { AppError } from '../../errors.js';
import type { RenderUrlService } from '../../services/render-url.service.js';
import { actorOf } from '../plugins/auth.js';
import { AUTHED_ERRORS, errors, POST_ERRORS } from '../schemas/common.js';
import { CreateRenderUrlBody, CreateRenderUrlResponse, RenderUrlSecretResponse } from '../schemas/render-urls.js';
import type { App } from '../types.js';

const tags = ['Render URLs'];

const FILE = '^[a-z0-9]{3,11}\\.[a-z]{3,4}$';

const IMAGE_DESCRIPTION =
  'Public: the signature `s` (HMAC-SHA256 of the path and the sorted query with the team secret) authorises it. ' +
  'Query parameters change elements (`headline=Hello`, `cta.BGCOLOR=%2310B981`: an element name alone is its LABEL ' +
  'or SOURCE) or set `scale`, `quality`, `slide`, `version`, `exp`. Answers the image with a strong ETag (304 on ' +
  'If-None-Match) and Cache-Control; `X-Render-Cache` says what answered (memory, store, render, shared). Unsigned, ' +
  'tampered or expired: 403; unknown design or size: 404; bad parameter: 400 naming it.';

export function renderUrlsRoutes(app: App, { renderUrls }: { renderUrls: RenderUrlService }) {
  async function image(request: FastifyRequest, reply: FastifyReply, hash: string, size: string | null, file: string) {
    // Errors must not be kept by a CDN or a mail proxy: a link refused now may be fixed (rotated back, re-signed).
    reply.header('cache-control', 'no-store');
    if (!/^[a-z0-9]{7}$/.test(hash)) throw new AppError('NOT_FOUND', `templateHash: no design ${hash}`);
    const [path, query = ''] = splitUrl(request.url);
    const answer = await renderUrls.serve({
      path,
      hash,
      size,
      extension: file.slice(file.lastIndexOf('.') + 1),
      query,
      ifNoneMatch: header(request.headers['if-none-match']),
      client: request.ip,
    });
    reply
      .header('etag', answer.etag)
      .header('cache-control', answer.cacheControl)
      .header('x-render-cache', answer.source)
      .header('x-content-type-options', 'nosniff');
    if (answer.status === 304) return reply.code(304).send();
    return reply
      .type(answer.contentType)
      .send(Buffer.from(answer.body!.buffer, answer.body!.byteOffset, answer.body!.byteLength));
  }

  const refusals = errors(
    'VALIDATION_FAILED',
    'INVALID_SIGNATURE',
    'LINK_EXPIRED',
    'NOT_FOUND',
    'RATE_LIMITED',
    'UNAVAILABLE',
  );

  app.get('/r/:file', {
    config: { public: true },
    schema: {
      tags,
      summary: 'The image of a signed render URL (first size of the design)',
      description: IMAGE_DESCRIPTION,
      params: Type.Object({ file: Type.String({ pattern: FILE, description: '{templateHash}.{png|jpg|webp}' }) }),
      response: refusals,
    },
    handler: async (request, reply) => {
      const { file } = request.params;
      return image(request, reply, file.slice(0, file.lastIndexOf('.')), null, file);
    },
  });

  app.get('/r/:hash/:file', {
    config: { public: true },
    schema: {
      tags,
      summary: 'The image of a signed render URL, one size of a design set (by size hash or WxH)',
      description: IMAGE_DESCRIPTION,
      params: Type.Object({
        hash: Type.String({ maxLength: 20, description: 'Design hash' }),
        file: Type.String({ pattern: FILE, description: '{size hash or WxH}.{png|jpg|webp}' }),
      }),
      response: refusals,
    },
    handler: async (request, reply) => {
      const { hash, file } = request.params;
      return image(request, reply, hash, file.slice(0, file.lastIndexOf('.')), file);
    },
  });

  app.get('/v1/renderUrls/secret', {
    config: { permission: 'team:manage' },
    schema: {
      tags,
      summary: 'The secret that signs render URLs of the team',
      description:
        'Extension. Made on first read. Owner and Admin only: whoever holds it can sign any link of the team.',
      response: { 200: RenderUrlSecretResponse, ...errors(...AUTHED_ERRORS, 'FORBIDDEN') },
    },
    handler: async (request) => ({ response: await renderUrls.secret(actorOf(request)) }),
  });

  app.post('/v1/renderUrls/secret/rotate', {
    config: { permission: 'team:manage' },
    schema: {
      tags,
      summary: 'Replace the secret that signs render URLs',
      description:
        'Extension. Links signed with the previous secret keep working until `previousValidUntil` ' +
        '(PLACARD_RENDER_URL_SECRET_OVERLAP_SECONDS, default 7 days); a second rotation ends the one before at once.',
      response: { 200: RenderUrlSecretResponse, ...errors(...AUTHED_ERRORS, 'FORBIDDEN', ...POST_ERRORS) },
    },
    handler: async (request) => ({ response: await renderUrls.rotateSecret(actorOf(request)) }),
  });

  app.post('/v1/renderUrls', {
    config: { permission: 'export:create' },
    schema: {
      tags,
      summary: 'Sign a render URL',
      description:
        'Extension. For a client that does not sign links itself: checks the changes and settings as the link will ' +
        'be checked (an invalid link is never handed out) and answers `response.url`, signed with the current secret.',
      body: CreateRenderUrlBody,
      response: {
        200: CreateRenderUrlResponse,
        ...errors(
          ...AUTHED_ERRORS,
          'FORBIDDEN',
          'NOT_FOUND',
          ...POST_ERRORS,
          'UNKNOWN_ELEMENT',
          'ATTRIBUTE_NOT_APPLICABLE',
          'INVALID_ELEMENT_CHANGE',
          'FONT_VARIANT_UNAVAILABLE',
        ),
      },
    },
    handler: async (request) => ({ response: await renderUrls.createUrl(actorOf(request), request.body) }),
  });
}

function splitUrl(url: string): [string, string?] {
  const at = url.indexOf('?');
  return at === -1 ? [url] : [url.slice(0, at), url.slice(at + 1)];
}

function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(',') : value;
}
