import {
  BrandKitIdParams,
  CreateMediaFolderBody,
  ListAssetsQuery,
  ListAssetsResponse,
  ListMediaFoldersResponse,
  MediaFolderResponse,
  UploadAssetsBody,
  UploadAssetsResponse,
} from '../schemas/brand-kit-assets.js';
import { AUTHED_ERRORS, errors, POST_ERRORS } from '../schemas/common.js';
import type { App } from '../types.js';
import { notImplemented } from './not-implemented.js';

const tags = ['Brand kit assets'];

export function brandKitAssetsRoutes(app: App) {
  app.post('/v1/brandkit/uploadAssets', {
    config: { permission: 'content:write' },
    schema: {
      tags,
      summary: 'Upload assets to a brand kit from public links',
      description:
        'Answers at once with every asset in status PROCESSING; each source is then fetched in the background and ' +
        'its type decided by content sniffing. Images jpg, jpeg, png, gif, svg, webp up to 20 MB (gif 1 MB); audio ' +
        'mp3, wav, ogg up to 10 MB; video mp4, mov, avi, webm, mkv up to 100 MB; audio and video up to 5 minutes.',
      body: UploadAssetsBody,
      response: {
        200: UploadAssetsResponse,
        ...errors(...AUTHED_ERRORS, 'FORBIDDEN', 'NOT_FOUND', ...POST_ERRORS, 'SOURCE_REJECTED', 'NOT_IMPLEMENTED'),
      },
    },
    handler: async () => notImplemented('POST /v1/brandkit/uploadAssets'),
  });

  app.get('/v1/brandkit/:id/assets', {
    config: { permission: 'read' },
    schema: {
      tags,
      summary: 'List the assets of a brand kit',
      params: BrandKitIdParams,
      querystring: ListAssetsQuery,
      response: {
        200: ListAssetsResponse,
        ...errors(...AUTHED_ERRORS, 'NOT_FOUND', 'INVALID_CURSOR', 'NOT_IMPLEMENTED'),
      },
    },
    handler: async () => notImplemented('GET /v1/brandkit/{id}/assets'),
  });

  app.post('/v1/brandkit/mediaFolders', {
    config: { permission: 'content:write' },
    schema: {
      tags,
      summary: 'Create a media folder in a brand kit',
      description: 'Extension.',
      body: CreateMediaFolderBody,
      response: {
        200: MediaFolderResponse,
        ...errors(...AUTHED_ERRORS, 'FORBIDDEN', 'NOT_FOUND', ...POST_ERRORS, 'NOT_IMPLEMENTED'),
      },
    },
    handler: async () => notImplemented('POST /v1/brandkit/mediaFolders'),
  });

  app.get('/v1/brandkit/:id/mediaFolders', {
    config: { permission: 'read' },
    schema: {
      tags,
      summary: 'List the media folders of a brand kit',
      description: 'Extension.',
      params: BrandKitIdParams,
      response: { 200: ListMediaFoldersResponse, ...errors(...AUTHED_ERRORS, 'NOT_FOUND', 'NOT_IMPLEMENTED') },
    },
    handler: async () => notImplemented('GET /v1/brandkit/{id}/mediaFolders'),
  });
}
