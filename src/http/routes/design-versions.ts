import { AUTHED_ERRORS, errors, POST_ERRORS } from '../schemas/common.js';
import {
  CreateDesignVersionBody,
  DesignVersionStatus,
  ListDesignVersionsQuery,
  ListDesignVersionsResponse,
  RenameDesignVersionBody,
  RestoreDesignVersionBody,
} from '../schemas/design-versions.js';
import type { App } from '../types.js';
import { notImplemented } from './not-implemented.js';

const tags = ['Design versions'];

export function designVersionsRoutes(app: App) {
  app.get('/v1/designVersion', {
    config: { permission: 'read' },
    schema: {
      tags,
      summary: 'List the versions of a design',
      querystring: ListDesignVersionsQuery,
      response: { 200: ListDesignVersionsResponse, ...errors(...AUTHED_ERRORS, 'NOT_FOUND', 'NOT_IMPLEMENTED') },
    },
    handler: async () => notImplemented('GET /v1/designVersion'),
  });

  app.post('/v1/designVersion', {
    config: { permission: 'content:write' },
    schema: {
      tags,
      summary: 'Save the current content of a design as a version',
      body: CreateDesignVersionBody,
      response: {
        200: DesignVersionStatus,
        ...errors(...AUTHED_ERRORS, 'FORBIDDEN', 'NOT_FOUND', ...POST_ERRORS, 'NOT_IMPLEMENTED'),
      },
    },
    handler: async () => notImplemented('POST /v1/designVersion'),
  });

  app.put('/v1/designVersion', {
    config: { permission: 'content:write' },
    schema: {
      tags,
      summary: 'Rename a version of a design',
      body: RenameDesignVersionBody,
      response: {
        200: DesignVersionStatus,
        ...errors(...AUTHED_ERRORS, 'FORBIDDEN', 'NOT_FOUND', 'NOT_IMPLEMENTED'),
      },
    },
    handler: async () => notImplemented('PUT /v1/designVersion'),
  });

  app.post('/v1/designVersion/restore', {
    config: { permission: 'content:write' },
    schema: {
      tags,
      summary: 'Restore a version of a design',
      description:
        'The current content is first saved as an automatic version, so a restore can be undone. ' +
        'An unknown versionId is a 404.',
      body: RestoreDesignVersionBody,
      response: {
        200: DesignVersionStatus,
        ...errors(...AUTHED_ERRORS, 'FORBIDDEN', 'NOT_FOUND', ...POST_ERRORS, 'NOT_IMPLEMENTED'),
      },
    },
    handler: async () => notImplemented('POST /v1/designVersion/restore'),
  });
}
