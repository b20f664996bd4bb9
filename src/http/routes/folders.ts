import { AUTHED_ERRORS, errors, POST_ERRORS, StatusSuccess } from '../schemas/common.js';
import {
  CreateFolderBody,
  DeleteFolderBody,
  FolderResponse,
  ListFoldersQuery,
  ListFoldersResponse,
  MoveDesignToFolderBody,
  MoveDesignToFolderResponse,
  UpdateFolderBody,
} from '../schemas/folders.js';
import type { App } from '../types.js';
import { notImplemented } from './not-implemented.js';

const tags = ['Folders'];

export function foldersRoutes(app: App) {
  app.get('/v1/folders', {
    config: { permission: 'read' },
    schema: {
      tags,
      summary: 'List the subfolders of a folder of a project',
      description: '`path` is the breadcrumb from the root to `parentId`.',
      querystring: ListFoldersQuery,
      response: { 200: ListFoldersResponse, ...errors(...AUTHED_ERRORS, 'NOT_FOUND', 'NOT_IMPLEMENTED') },
    },
    handler: async () => notImplemented('GET /v1/folders'),
  });

  app.post('/v1/folders', {
    config: { permission: 'content:write' },
    schema: {
      tags,
      summary: 'Create a folder',
      description: 'Extension. A parent folder of another project is a 422.',
      body: CreateFolderBody,
      response: {
        200: FolderResponse,
        ...errors(...AUTHED_ERRORS, 'FORBIDDEN', 'NOT_FOUND', ...POST_ERRORS, 'INVALID_MOVE', 'NOT_IMPLEMENTED'),
      },
    },
    handler: async () => notImplemented('POST /v1/folders'),
  });

  app.put('/v1/folders', {
    config: { permission: 'content:write' },
    schema: {
      tags,
      summary: 'Rename or move a folder',
      description: 'Extension. A move into its own subtree or into another project is a 422 INVALID_MOVE.',
      body: UpdateFolderBody,
      response: {
        200: FolderResponse,
        ...errors(...AUTHED_ERRORS, 'FORBIDDEN', 'NOT_FOUND', 'INVALID_MOVE', 'NOT_IMPLEMENTED'),
      },
    },
    handler: async () => notImplemented('PUT /v1/folders'),
  });

  app.delete('/v1/folders', {
    config: { permission: 'content:write' },
    schema: {
      tags,
      summary: 'Delete a folder, keeping its content',
      description: "Extension. The folder's designs and subfolders move up to its parent: nothing else is deleted.",
      body: DeleteFolderBody,
      response: { 200: StatusSuccess, ...errors(...AUTHED_ERRORS, 'FORBIDDEN', 'NOT_FOUND', 'NOT_IMPLEMENTED') },
    },
    handler: async () => notImplemented('DELETE /v1/folders'),
  });

  app.post('/v1/moveDesignToFolder', {
    config: { permission: 'content:write' },
    schema: {
      tags,
      summary: 'Move a design to a folder',
      description: '`folderId: -1` moves the design to the root of its project; a folder of another project is a 422.',
      body: MoveDesignToFolderBody,
      response: {
        200: MoveDesignToFolderResponse,
        ...errors(...AUTHED_ERRORS, 'FORBIDDEN', 'NOT_FOUND', ...POST_ERRORS, 'INVALID_MOVE', 'NOT_IMPLEMENTED'),
      },
    },
    handler: async () => notImplemented('POST /v1/moveDesignToFolder'),
  });
}
