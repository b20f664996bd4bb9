import {
  BrandKitResponse,
  CreateBrandKitBody,
  DeleteBrandKitBody,
  ListBrandKitsQuery,
  ListBrandKitsResponse,
  UpdateBrandKitBody,
} from '../schemas/brand-kits.js';
import { AUTHED_ERRORS, errors, POST_ERRORS, StatusSuccess } from '../schemas/common.js';
import type { App } from '../types.js';
import { notImplemented } from './not-implemented.js';

const tags = ['Brand kits'];

export function brandKitsRoutes(app: App) {
  app.get('/v1/brandkits', {
    config: { permission: 'read' },
    schema: {
      tags,
      summary: 'List the brand kits of the team',
      querystring: ListBrandKitsQuery,
      response: { 200: ListBrandKitsResponse, ...errors(...AUTHED_ERRORS, 'INVALID_CURSOR', 'NOT_IMPLEMENTED') },
    },
    handler: async () => notImplemented('GET /v1/brandkits'),
  });

  app.post('/v1/brandkits/create', {
    config: { permission: 'content:write' },
    schema: {
      tags,
      summary: 'Create a brand kit',
      body: CreateBrandKitBody,
      response: {
        200: BrandKitResponse,
        ...errors(...AUTHED_ERRORS, 'FORBIDDEN', ...POST_ERRORS, 'NOT_IMPLEMENTED'),
      },
    },
    handler: async () => notImplemented('POST /v1/brandkits/create'),
  });

  app.put('/v1/brandkits', {
    config: { permission: 'content:write' },
    schema: {
      tags,
      summary: 'Rename a brand kit',
      body: UpdateBrandKitBody,
      response: { 200: BrandKitResponse, ...errors(...AUTHED_ERRORS, 'FORBIDDEN', 'NOT_FOUND', 'NOT_IMPLEMENTED') },
    },
    handler: async () => notImplemented('PUT /v1/brandkits'),
  });

  app.delete('/v1/brandkits', {
    config: { permission: 'content:write' },
    schema: {
      tags,
      summary: 'Delete a brand kit',
      description: 'A brand kit that a project still uses cannot be deleted (409 BRANDKIT_IN_USE).',
      body: DeleteBrandKitBody,
      response: {
        200: StatusSuccess,
        ...errors(...AUTHED_ERRORS, 'FORBIDDEN', 'NOT_FOUND', 'BRANDKIT_IN_USE', 'NOT_IMPLEMENTED'),
      },
    },
    handler: async () => notImplemented('DELETE /v1/brandkits'),
  });
}
