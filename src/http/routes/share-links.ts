import { AUTHED_ERRORS, errors, POST_ERRORS } from '../schemas/common.js';
import {
  GenerateShareLinkBody,
  GenerateShareLinkResponse,
  ShareLinkParams,
  ShareLinkResponse,
} from '../schemas/share-links.js';
import type { App } from '../types.js';
import { notImplemented } from './not-implemented.js';

const tags = ['Share links'];

export function shareLinksRoutes(app: App) {
  app.get('/v1/shareLink/:templateHash', {
    // Answering this GET hands out a public link to the design, so it needs the share-link permission.
    config: { permission: 'shareLink:create' },
    schema: {
      tags,
      summary: 'Share link of a design',
      description: 'The link is stable per design: it is made on the first call and returned again afterwards.',
      params: ShareLinkParams,
      response: { 200: ShareLinkResponse, ...errors(...AUTHED_ERRORS, 'NOT_FOUND', 'NOT_IMPLEMENTED') },
    },
    handler: async () => notImplemented('GET /v1/shareLink/{templateHash}'),
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
          'NOT_IMPLEMENTED',
        ),
      },
    },
    handler: async () => notImplemented('POST /v1/shareLink/generate'),
  });
}
