// Brand fonts (issue 17): upload by public links (JSON) or as files (multipart/form-data), list, delete.
import multipart from '@fastify/multipart';
import { AppError } from '../../errors.js';
import { MAX_FONT_BYTES } from '../../render/text/brand-font-file.js';
import { type FontService, MAX_FONTS_PER_UPLOAD } from '../../services/font.service.js';
import { actorOf } from '../plugins/auth.js';
import {
  DeleteFontBody,
  ListFontsQuery,
  ListFontsResponse,
  UploadFontsBody,
  UploadFontsResponse,
} from '../schemas/brand-fonts.js';
import { BrandKitIdParams } from '../schemas/brand-kit-assets.js';
import { AUTHED_ERRORS, BODY_ERRORS, errors, POST_ERRORS, StatusSuccess } from '../schemas/common.js';
import type { App } from '../types.js';

const tags = ['Brand fonts'];

const RULES =
  'TTF, OTF, WOFF, WOFF2 and TrueType collections (each face becomes a font), recognised by content and checked with ' +
  "fontkit; 10 MB a file, 20 files a request. Family and variant come from the font's name and OS/2 tables; each " +
  'named instance of a variable font is a variant. A file that cannot be used (not a font, damaged, too large, a ' +
  'face the kit already has, an unreachable or private link) is answered with its `error` and stores nothing; the ' +
  'other files are still stored. Needs the Editor role or a stronger one; a brand kit of another team is a 404.';

export function brandFontsRoutes(app: App, { fonts }: { fonts: FontService }) {
  app.post('/v1/brandkit/uploadFonts', {
    config: { permission: 'read' },
    schema: {
      tags,
      summary: 'Upload fonts to a brand kit from public links',
      description: `Extension. Answers when every font is stored. ${RULES}`,
      body: UploadFontsBody,
      response: {
        200: UploadFontsResponse,
        ...errors(...AUTHED_ERRORS, 'FORBIDDEN', 'NOT_FOUND', ...POST_ERRORS),
      },
    },
    handler: async (request) => ({ response: await fonts.uploadFromUrls(actorOf(request), request.body) }),
  });

  // multipart/form-data is accepted by this route only: the parser lives in its own encapsulated scope, so every
  // other route keeps answering 415 to anything but JSON (SPEC §1).
  app.register(async (scope) => {
    await scope.register(multipart, {
      throwFileSizeLimit: false,
      limits: { fileSize: MAX_FONT_BYTES, files: MAX_FONTS_PER_UPLOAD + 1, fields: 0, parts: MAX_FONTS_PER_UPLOAD + 1 },
    });
    (scope as App).post('/v1/brandkit/:id/fonts', {
      config: { permission: 'read' },
      schema: {
        tags,
        summary: 'Upload font files to a brand kit (multipart/form-data)',
        description: `Extension. One or more \`file\` parts, each a font file. ${RULES}`,
        params: BrandKitIdParams,
        consumes: ['multipart/form-data'],
        response: {
          200: UploadFontsResponse,
          ...errors(...AUTHED_ERRORS, 'FORBIDDEN', 'NOT_FOUND', ...BODY_ERRORS),
        },
      },
      handler: async (request) => {
        if (!request.isMultipart()) {
          throw new AppError(
            'UNSUPPORTED_MEDIA_TYPE',
            'the body must be multipart/form-data with one or more `file` parts holding font files',
          );
        }
        const parts = request.files();
        const files = (async function* () {
          for await (const part of parts) {
            if (part.fieldname !== 'file') {
              await part.toBuffer();
              throw new AppError(
                'VALIDATION_FAILED',
                `${part.fieldname}: unknown part; font files go in \`file\` parts`,
              );
            }
            const fileName = (part.filename || 'font').replace(/[\p{Cc}\p{Cf}/\\]/gu, '_').slice(0, 200);
            // Read before the next part: busboy hands parts over one at a time.
            const bytes = await part.toBuffer();
            const truncated = part.file.truncated;
            yield {
              fileName,
              read: async () => {
                if (truncated) {
                  throw new AppError(
                    'FONT_REJECTED',
                    `${fileName} is larger than the ${MAX_FONT_BYTES / 1024 / 1024} MB a font file may have`,
                  );
                }
                return bytes;
              },
            };
          }
        })();
        return { response: await fonts.uploadFiles(actorOf(request), request.params.id, files) };
      },
    });
  });

  app.get('/v1/brandkit/:id/fonts', {
    config: { permission: 'read' },
    schema: {
      tags,
      summary: 'List the fonts of a brand kit',
      description: 'Extension. One node per face, newest first (SPEC §4 paging).',
      params: BrandKitIdParams,
      querystring: ListFontsQuery,
      response: { 200: ListFontsResponse, ...errors(...AUTHED_ERRORS, 'NOT_FOUND', 'INVALID_CURSOR') },
    },
    handler: async (request) => ({
      response: await fonts.list(actorOf(request), request.params.id, request.query),
    }),
  });

  app.delete('/v1/brandkit/fonts', {
    config: { permission: 'read' },
    schema: {
      tags,
      summary: 'Delete a font of a brand kit',
      description:
        'Extension. Designs that use it are not changed: their text falls back to the default font and their exports ' +
        'say so in `warnings`. Needs the Editor role or a stronger one.',
      body: DeleteFontBody,
      response: {
        200: StatusSuccess,
        ...errors(...AUTHED_ERRORS, ...BODY_ERRORS, 'FORBIDDEN', 'NOT_FOUND'),
      },
    },
    handler: async (request) => {
      await fonts.delete(actorOf(request), request.body);
      return { response: { status: 'success' as const } };
    },
  });
}
