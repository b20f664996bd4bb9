import multipart from '@fastify/multipart';
import { AppError } from '../../errors.js';
import { MEDIA_LIMITS } from '../../render/media/assets.js';
import { type AssetService, MAX_ASSET_FILES_PER_UPLOAD, type UploadedFile } from '../../services/asset.service.js';
import { actorOf } from '../plugins/auth.js';
import {
  BrandKitIdParams,
  CreateMediaFolderBody,
  ListAssetsQuery,
  ListAssetsResponse,
  ListMediaFoldersResponse,
  MediaFolderResponse,
  UploadAssetFilesQuery,
  UploadAssetsBody,
  UploadAssetsResponse,
} from '../schemas/brand-kit-assets.js';
import { AUTHED_ERRORS, BODY_ERRORS, errors, POST_ERRORS } from '../schemas/common.js';
import type { App } from '../types.js';

const tags = ['Brand kit assets'];

// Uploads and new media folders name an existing brand kit: the route only asks for `read` and the service checks
// `content:write` after finding the kit, so that another team's kit is a 404 for every role (see services/access.ts).
const WRITE_AFTER_LOOKUP =
  'Needs the Editor role or a stronger one; a brand kit of another team is a 404 for every role.';

export function brandKitAssetsRoutes(app: App, { assets }: { assets: AssetService }) {
  app.post('/v1/brandkit/uploadAssets', {
    config: { permission: 'read' },
    schema: {
      tags,
      summary: 'Upload assets to a brand kit from public links',
      description:
        'Answers at once with every asset in status PROCESSING; each source is then fetched in the background and ' +
        'its type decided by content sniffing. Images jpg, jpeg, png, gif, svg, webp up to 20 MB (gif 1 MB); audio ' +
        'mp3, wav, ogg up to 10 MB; video mp4, mov, avi, webm, mkv up to 100 MB; audio and video up to 5 minutes. ' +
        'A source that breaks a rule (file-hosting share link, private address, not a media file, over a limit) ' +
        'ends INVALID with the reason in `error`; brandkit/assetsUploaded is recorded when every asset has settled. ' +
        'A mediaFolderId of another brand kit of the team is a 422, one of no brand kit of the team a 404. ' +
        WRITE_AFTER_LOOKUP,
      body: UploadAssetsBody,
      response: {
        200: UploadAssetsResponse,
        ...errors(...AUTHED_ERRORS, 'FORBIDDEN', 'NOT_FOUND', ...POST_ERRORS, 'UNPROCESSABLE'),
      },
    },
    handler: async (request) => ({ response: await assets.upload(actorOf(request), request.body) }),
  });

  // multipart/form-data is accepted by this route only (as for brand fonts): the parser lives in its own encapsulated
  // scope, so every other route keeps answering 415 to anything but JSON (SPEC §1). The byte limit per part is the
  // largest cap of any media kind; the cap of the file's own kind is checked once its type is known.
  const maxBytes = Math.max(MEDIA_LIMITS.imageBytes, MEDIA_LIMITS.audioBytes, MEDIA_LIMITS.videoBytes);
  app.register(async (scope) => {
    await scope.register(multipart, {
      throwFileSizeLimit: false,
      limits: {
        fileSize: maxBytes,
        files: MAX_ASSET_FILES_PER_UPLOAD + 1,
        fields: 0,
        parts: MAX_ASSET_FILES_PER_UPLOAD + 1,
      },
    });
    (scope as App).post('/v1/brandkit/:id/assets', {
      config: { permission: 'read' },
      schema: {
        tags,
        summary: 'Upload asset files to a brand kit (multipart/form-data)',
        description:
          `Extension. One or more \`file\` parts (at most ${MAX_ASSET_FILES_PER_UPLOAD}), each an image, audio or ` +
          'video file, checked by the same rules as a link of POST /v1/brandkit/uploadAssets: type by content ' +
          'sniffing (never by name or declared type), images up to 20 MB (gif 1 MB), audio 10 MB, video 100 MB, ' +
          '50 megapixels, 5 minutes, SVG without active content. Answers when every file is checked and stored: ' +
          'each asset VALID, or INVALID with the reason in `error` (the other files are still stored); `src` is ' +
          '`upload:` and the file name. brandkit/assetsUploaded is recorded. ' +
          WRITE_AFTER_LOOKUP,
        params: BrandKitIdParams,
        querystring: UploadAssetFilesQuery,
        consumes: ['multipart/form-data'],
        response: {
          200: UploadAssetsResponse,
          ...errors(...AUTHED_ERRORS, 'FORBIDDEN', 'NOT_FOUND', ...BODY_ERRORS, 'UNPROCESSABLE'),
        },
      },
      handler: async (request) => {
        if (!request.isMultipart()) {
          throw new AppError(
            'UNSUPPORTED_MEDIA_TYPE',
            'the body must be multipart/form-data with one or more `file` parts holding images, audio or video',
          );
        }
        const files: UploadedFile[] = [];
        for await (const part of request.files()) {
          // Read before the next part: busboy hands parts over one at a time.
          const bytes = await part.toBuffer();
          if (part.fieldname !== 'file') {
            throw new AppError('VALIDATION_FAILED', `${part.fieldname}: unknown part; files go in \`file\` parts`);
          }
          if (files.length === MAX_ASSET_FILES_PER_UPLOAD) {
            throw new AppError(
              'VALIDATION_FAILED',
              `file: at most ${MAX_ASSET_FILES_PER_UPLOAD} files in one upload; send the others in another request`,
            );
          }
          const fileName = (part.filename || 'asset').replace(/[\p{Cc}\p{Cf}/\\]/gu, '_').slice(0, 200);
          files.push({ fileName, bytes, truncated: part.file.truncated });
        }
        return {
          response: await assets.uploadFiles(
            actorOf(request),
            { brandkitId: request.params.id, mediaFolderId: request.query.mediaFolderId },
            files,
            maxBytes,
          ),
        };
      },
    });
  });

  app.get('/v1/brandkit/:id/assets', {
    config: { permission: 'read' },
    schema: {
      tags,
      summary: 'List the assets of a brand kit',
      description:
        'Every asset whatever its status, newest first. `first` is the page size (default 20, at most 100); without ' +
        '`parentId` the assets of every media folder are listed.',
      params: BrandKitIdParams,
      querystring: ListAssetsQuery,
      response: {
        200: ListAssetsResponse,
        ...errors(...AUTHED_ERRORS, 'NOT_FOUND', 'INVALID_CURSOR'),
      },
    },
    handler: async (request) => ({
      response: await assets.list(actorOf(request), request.params.id, request.query),
    }),
  });

  app.post('/v1/brandkit/mediaFolders', {
    config: { permission: 'read' },
    schema: {
      tags,
      summary: 'Create a media folder in a brand kit',
      description: `Extension. A parentId of another brand kit of the team is a 422. ${WRITE_AFTER_LOOKUP}`,
      body: CreateMediaFolderBody,
      response: {
        200: MediaFolderResponse,
        ...errors(...AUTHED_ERRORS, 'FORBIDDEN', 'NOT_FOUND', ...POST_ERRORS, 'UNPROCESSABLE'),
      },
    },
    handler: async (request) => ({ response: await assets.createFolder(actorOf(request), request.body) }),
  });

  app.get('/v1/brandkit/:id/mediaFolders', {
    config: { permission: 'read' },
    schema: {
      tags,
      summary: 'List the media folders of a brand kit',
      description: 'Extension.',
      params: BrandKitIdParams,
      response: { 200: ListMediaFoldersResponse, ...errors(...AUTHED_ERRORS, 'NOT_FOUND') },
    },
    handler: async (request) => ({ response: await assets.listFolders(actorOf(request), request.params.id) }),
  });
}
