import type { DesignService } from '../../services/design.service.js';
import type { FolderService } from '../../services/folder.service.js';
import { actorOf } from '../plugins/auth.js';
import { AUTHED_ERRORS, BODY_ERRORS, errors, POST_ERRORS, StatusSuccess } from '../schemas/common.js';
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

const tags = ['Folders'];

// Creating, changing and deleting folders name an existing project or folder: the route asks only for `read` and the
// service checks content:write after the lookup, so that what the caller cannot see is a 404 for every role
// (services/access.ts). moveDesignToFolder keeps its permission on the route until designs exist.
const WRITE_AFTER_LOOKUP =
  'Needs the Editor role or a stronger one on a project the caller can see (Editors: projects they are users of); ' +
  'a project or folder the caller cannot see is a 404 for every role.';

export function foldersRoutes(
  app: App,
  { folders, designs }: { folders: FolderService; designs: Pick<DesignService, 'moveToFolder'> },
) {
  app.get('/v1/folders', {
    config: { permission: 'read' },
    schema: {
      tags,
      summary: 'List the subfolders of a folder of a project',
      description: '`path` is the breadcrumb from the root to `parentId`.',
      querystring: ListFoldersQuery,
      response: { 200: ListFoldersResponse, ...errors(...AUTHED_ERRORS, 'NOT_FOUND') },
    },
    handler: async (request) => ({ response: await folders.list(actorOf(request), request.query) }),
  });

  app.post('/v1/folders', {
    config: { permission: 'read' },
    schema: {
      tags,
      summary: 'Create a folder',
      description: `Extension. A parent folder of another project is a 422 INVALID_MOVE. ${WRITE_AFTER_LOOKUP}`,
      body: CreateFolderBody,
      response: {
        200: FolderResponse,
        ...errors(...AUTHED_ERRORS, 'FORBIDDEN', 'NOT_FOUND', ...POST_ERRORS, 'INVALID_MOVE'),
      },
    },
    handler: async (request) => ({ response: await folders.create(actorOf(request), request.body) }),
  });

  app.put('/v1/folders', {
    config: { permission: 'read' },
    schema: {
      tags,
      summary: 'Rename or move a folder',
      description: `Extension. A move into its own subtree or into another project is a 422 INVALID_MOVE. ${WRITE_AFTER_LOOKUP}`,
      body: UpdateFolderBody,
      response: {
        200: FolderResponse,
        ...errors(...AUTHED_ERRORS, ...BODY_ERRORS, 'FORBIDDEN', 'NOT_FOUND', 'INVALID_MOVE'),
      },
    },
    handler: async (request) => ({ response: await folders.update(actorOf(request), request.body) }),
  });

  app.delete('/v1/folders', {
    config: { permission: 'read' },
    schema: {
      tags,
      summary: 'Delete a folder, keeping its content',
      description: `Extension. The folder's designs and subfolders move up to its parent: nothing else is deleted. ${WRITE_AFTER_LOOKUP}`,
      body: DeleteFolderBody,
      response: { 200: StatusSuccess, ...errors(...AUTHED_ERRORS, ...BODY_ERRORS, 'FORBIDDEN', 'NOT_FOUND') },
    },
    handler: async (request) => {
      await folders.delete(actorOf(request), request.body.folderId);
      return { response: { status: 'success' as const } };
    },
  });

  app.post('/v1/moveDesignToFolder', {
    config: { permission: 'read' },
    schema: {
      tags,
      summary: 'Move a design to a folder',
      description:
        '`folderId: -1` moves the design to the root of its project; a folder of another project is a 422 ' +
        `INVALID_MOVE. ${WRITE_AFTER_LOOKUP}`,
      body: MoveDesignToFolderBody,
      response: {
        200: MoveDesignToFolderResponse,
        ...errors(...AUTHED_ERRORS, 'FORBIDDEN', 'NOT_FOUND', ...POST_ERRORS, 'INVALID_MOVE'),
      },
    },
    handler: async (request) => {
      await designs.moveToFolder(actorOf(request), request.body);
      return { response: true as const };
    },
  });
}
