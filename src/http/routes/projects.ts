import type { ProjectService } from '../../services/project.service.js';
import { actorOf } from '../plugins/auth.js';
import { AUTHED_ERRORS, BODY_ERRORS, errors, POST_ERRORS, StatusSuccess } from '../schemas/common.js';
import {
  CreateProjectBody,
  DeleteProjectBody,
  ListProjectsQuery,
  ListProjectsResponse,
  ProjectResponse,
  UpdateProjectBody,
} from '../schemas/projects.js';
import type { App } from '../types.js';

const tags = ['Projects'];

// Every write here names an existing object (a brand kit, a project): the route asks only for `read` and the service
// checks content:write after the lookup, so that what the caller cannot see is a 404 for every role (services/access.ts).
const WRITE_AFTER_LOOKUP =
  'Needs the Editor role or a stronger one; Editors change only projects they are users of. ' +
  'A project or brand kit the caller cannot see is a 404 for every role.';

export function projectsRoutes(app: App, { projects }: { projects: ProjectService }) {
  app.get('/v1/projects', {
    config: { permission: 'read' },
    schema: {
      tags,
      summary: 'List the projects the caller can see',
      description:
        'Owners and Admins see every project of the team; Editors and Viewers the projects they are users of.',
      querystring: ListProjectsQuery,
      response: { 200: ListProjectsResponse, ...errors(...AUTHED_ERRORS, 'INVALID_CURSOR') },
    },
    handler: async (request) => ({ response: await projects.list(actorOf(request), request.query) }),
  });

  app.post('/v1/projects', {
    config: { permission: 'read' },
    schema: {
      tags,
      summary: 'Create a project',
      description: `The creator becomes a user of the project; \`color\` is chosen at random when absent. ${WRITE_AFTER_LOOKUP}`,
      body: CreateProjectBody,
      response: {
        200: ProjectResponse,
        ...errors(...AUTHED_ERRORS, 'FORBIDDEN', 'NOT_FOUND', ...POST_ERRORS),
      },
    },
    handler: async (request) => ({ response: await projects.create(actorOf(request), request.body) }),
  });

  app.put('/v1/projects', {
    config: { permission: 'read' },
    schema: {
      tags,
      summary: 'Update a project',
      description: `\`assignedBrandKitId\` changes the brand kit of the project. ${WRITE_AFTER_LOOKUP}`,
      body: UpdateProjectBody,
      response: { 200: ProjectResponse, ...errors(...AUTHED_ERRORS, ...BODY_ERRORS, 'FORBIDDEN', 'NOT_FOUND') },
    },
    handler: async (request) => ({ response: await projects.update(actorOf(request), request.body) }),
  });

  app.delete('/v1/projects', {
    config: { permission: 'read' },
    schema: {
      tags,
      summary: 'Delete a project with its folders and designs',
      description: WRITE_AFTER_LOOKUP,
      body: DeleteProjectBody,
      response: { 200: StatusSuccess, ...errors(...AUTHED_ERRORS, ...BODY_ERRORS, 'FORBIDDEN', 'NOT_FOUND') },
    },
    handler: async (request) => {
      await projects.delete(actorOf(request), request.body.projectId);
      return { response: { status: 'success' as const } };
    },
  });
}
