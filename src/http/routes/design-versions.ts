import type { DesignVersionService } from '../../services/design-version.service.js';
import { actorOf } from '../plugins/auth.js';
import { AUTHED_ERRORS, BODY_ERRORS, errors, POST_ERRORS } from '../schemas/common.js';
import {
  CreateDesignVersionBody,
  DesignVersionDocumentQuery,
  DesignVersionDocumentResponse,
  DesignVersionStatus,
  ListDesignVersionsQuery,
  ListDesignVersionsResponse,
  RenameDesignVersionBody,
  RestoreDesignVersionBody,
} from '../schemas/design-versions.js';
import type { App } from '../types.js';

const tags = ['Design versions'];

// Changes name an existing design: the route asks only for `read` and the service checks content:write after the
// lookup, so a design the caller cannot see is a 404 for every role (services/access.ts).
const WRITE_AFTER_LOOKUP =
  '`hash` is a design hash or the hash of one of its sizes. Needs the Editor role or a stronger one on a project the ' +
  'caller can see; a design the caller cannot see is a 404 for every role.';

export function designVersionsRoutes(app: App, { versions }: { versions: DesignVersionService }) {
  app.get('/v1/designVersion', {
    config: { permission: 'read' },
    schema: {
      tags,
      summary: 'List the versions of a design',
      description:
        '`hash` is a design hash or the hash of one of its sizes; either way every version of the design is listed, ' +
        'newest first. `lastModified` is when the version was saved and `lastModifiedByName` who saved it.',
      querystring: ListDesignVersionsQuery,
      response: { 200: ListDesignVersionsResponse, ...errors(...AUTHED_ERRORS, 'NOT_FOUND') },
    },
    handler: async (request) => ({ response: await versions.list(actorOf(request), request.query.hash) }),
  });

  app.get('/v1/designVersion/document', {
    config: { permission: 'read' },
    schema: {
      tags,
      summary: 'Read the design document of a version',
      description:
        "Extension (the studio's version preview). The version's document in the current format, exactly what a " +
        'restore would store. An unknown versionId is a 404; a design the caller cannot see is a 404.',
      querystring: DesignVersionDocumentQuery,
      response: { 200: DesignVersionDocumentResponse, ...errors(...AUTHED_ERRORS, 'NOT_FOUND') },
    },
    handler: async (request) => ({ response: await versions.document(actorOf(request), request.query) }),
  });

  app.post('/v1/designVersion', {
    config: { permission: 'read' },
    schema: {
      tags,
      summary: 'Save the current content of a design as a version',
      description: `Its sizeHash is the size hash given, or the first size's. ${WRITE_AFTER_LOOKUP}`,
      body: CreateDesignVersionBody,
      response: {
        200: DesignVersionStatus,
        ...errors(...AUTHED_ERRORS, 'FORBIDDEN', 'NOT_FOUND', ...POST_ERRORS),
      },
    },
    handler: async (request) => ({ response: await versions.create(actorOf(request), request.body) }),
  });

  app.put('/v1/designVersion', {
    config: { permission: 'read' },
    schema: {
      tags,
      summary: 'Rename a version of a design',
      description: `A versionId the design does not have is a 404. ${WRITE_AFTER_LOOKUP}`,
      body: RenameDesignVersionBody,
      response: {
        200: DesignVersionStatus,
        ...errors(...AUTHED_ERRORS, ...BODY_ERRORS, 'FORBIDDEN', 'NOT_FOUND'),
      },
    },
    handler: async (request) => ({ response: await versions.rename(actorOf(request), request.body) }),
  });

  app.post('/v1/designVersion/restore', {
    config: { permission: 'read' },
    schema: {
      tags,
      summary: 'Restore a version of a design',
      description:
        'The current content is first saved as an automatic version, so a restore can be undone; the restored ' +
        `content is a new revision of the design. An unknown versionId is a 404. ${WRITE_AFTER_LOOKUP}`,
      body: RestoreDesignVersionBody,
      response: {
        200: DesignVersionStatus,
        ...errors(...AUTHED_ERRORS, 'FORBIDDEN', 'NOT_FOUND', ...POST_ERRORS),
      },
    },
    handler: async (request) => ({ response: await versions.restore(actorOf(request), request.body) }),
  });
}
