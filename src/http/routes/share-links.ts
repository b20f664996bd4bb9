import { Type } from 'typebox';
import type { ShareLinkService } from '../../services/share-link.service.js';
import { actorOf } from '../plugins/auth.js';
import { AUTHED_ERRORS, errors, POST_ERRORS } from '../schemas/common.js';
import {
  GenerateShareLinkBody,
  GenerateShareLinkResponse,
  ShareLinkParams,
  ShareLinkResponse,
} from '../schemas/share-links.js';
import type { App } from '../types.js';

const tags = ['Share links'];

const Token = Type.String({ pattern: '^[A-Za-z0-9_-]{22}$', description: '128-bit random token (base64url)' });
const SizeIndex = Type.Integer({ minimum: 0, maximum: 999, description: 'Index of the size in the design, from 0' });

export function shareLinksRoutes(app: App, { shareLinks }: { shareLinks: ShareLinkService }) {
  app.get('/v1/shareLink/:templateHash', {
    // Answering this GET hands out a public link to the design, so it needs the share-link permission.
    config: { permission: 'shareLink:create' },
    schema: {
      tags,
      summary: 'Share link of a design',
      description: 'The link is stable per design: it is made on the first call and returned again afterwards.',
      params: ShareLinkParams,
      response: { 200: ShareLinkResponse, ...errors(...AUTHED_ERRORS, 'NOT_FOUND') },
    },
    handler: async (request) => ({
      response: await shareLinks.linkFor(actorOf(request), request.params.templateHash),
    }),
  });

  app.post('/v1/shareLink/generate', {
    config: { permission: 'shareLink:create' },
    schema: {
      tags,
      summary: 'Preview a template with element changes',
      description:
        'Stores the changed document as a preview, not as a design. SOURCE takes a public media file link. ' +
        'The answer carries the preview both inside `response` and, as `previewUrl` and `previewId`, at the top level.',
      body: GenerateShareLinkBody,
      response: {
        200: GenerateShareLinkResponse,
        ...errors(
          ...AUTHED_ERRORS,
          'NOT_FOUND',
          ...POST_ERRORS,
          'UNKNOWN_ELEMENT',
          'ATTRIBUTE_NOT_APPLICABLE',
          'INVALID_ELEMENT_CHANGE',
          'FONT_VARIANT_UNAVAILABLE',
        ),
      },
    },
    handler: async (request) => shareLinks.generate(actorOf(request), request.body),
  });

  app.get('/share/:token', {
    config: { public: true },
    schema: {
      tags,
      summary: 'Public preview page of a share link (HTML, no authentication)',
      description:
        'Plays the design live from its HTML5 package, with a size switcher for sets and a replay button. ' +
        'A stable link plays the design as it is now; a generated preview plays its stored changes.',
      params: Type.Object({ token: Token }),
      querystring: Type.Object({ size: Type.Optional(SizeIndex) }),
      response: { ...errors('VALIDATION_FAILED', 'NOT_FOUND') },
    },
    handler: async (request, reply) => {
      const html = await shareLinks.page(request.params.token, request.query.size);
      return reply
        .type('text/html; charset=utf-8')
        .header('cache-control', 'no-store')
        .header('x-content-type-options', 'nosniff')
        .header('referrer-policy', 'no-referrer')
        .header(
          'content-security-policy',
          "default-src 'none'; frame-src 'self'; connect-src 'self'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; frame-ancestors *",
        )
        .send(html);
    },
  });

  app.get('/share/:token/:size/*', {
    config: { public: true },
    schema: {
      tags,
      summary: 'A file of the HTML5 package a share page plays',
      params: Type.Object({ token: Token, size: SizeIndex, '*': Type.String({ maxLength: 200 }) }),
      response: { ...errors('VALIDATION_FAILED', 'NOT_FOUND') },
    },
    handler: async (request, reply) => {
      const { token, size } = request.params;
      const file = await shareLinks.file(token, size, request.params['*']);
      return (
        reply
          .type(file.contentType)
          .header('cache-control', 'private, max-age=60')
          .header('x-content-type-options', 'nosniff')
          // The share page's iframe is sandboxed without allow-same-origin (the ad must not reach the page), so the
          // ad's origin is opaque and its font requests are cross-origin: without this header Chromium refuses the
          // fonts and draws a fallback serif (issue 15). The files are public to whoever holds the token anyway.
          .header('access-control-allow-origin', '*')
          .send(file.body)
      );
    },
  });
}
