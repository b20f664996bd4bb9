import type { ProjectService } from '../../services/project.service.js';
import { actorOf } from '../plugins/auth.js';
import { AUTHED_ERRORS, BODY_ERRORS, errors, POST_ERRORS, StatusSuccess } from '../schemas/common.js';
import { ListProjectUsersQuery, ListProjectUsersResponse, ProjectUserBody } from '../schemas/project-users.js';
import type { App } from '../types.js';

const tags = ['Project users'];

// Adding and removing users changes the project: the route asks only for `read` and the service checks content:write
// after finding the project, so that a project the caller cannot see is a 404 for every role (services/access.ts).
const WRITE_AFTER_LOOKUP =
  'Needs the Editor role or a stronger one on a project the caller can see (Editors: projects they are users of); ' +
  'a project the caller cannot see, or a user of another team, is a 404.';

export function projectUsersRoutes(app: App, { projects }: { projects: ProjectService }) {
  app.get('/v1/project/users', {
    config: { permission: 'read' },
    schema: {
      tags,
      summary: 'List the users of a project',
      description: 'By name. `role` is the team role of each user.',
      querystring: ListProjectUsersQuery,
      response: { 200: ListProjectUsersResponse, ...errors(...AUTHED_ERRORS, 'NOT_FOUND') },
    },
    handler: async (request) => ({ response: await projects.listUsers(actorOf(request), request.query.projectId) }),
  });

  app.post('/v1/project/users', {
    config: { permission: 'read' },
    schema: {
      tags,
      summary: 'Add a team user to a project',
      description: `Adding a user twice is a success and changes nothing. ${WRITE_AFTER_LOOKUP}`,
      body: ProjectUserBody,
      response: {
        200: StatusSuccess,
        ...errors(...AUTHED_ERRORS, 'FORBIDDEN', 'NOT_FOUND', ...POST_ERRORS),
      },
    },
    handler: async (request) => {
      await projects.addUser(actorOf(request), request.body);
      return { response: { status: 'success' as const } };
    },
  });

  app.delete('/v1/project/users', {
    config: { permission: 'read' },
    schema: {
      tags,
      summary: 'Remove a user from a project',
      description: `Removing a team user who is not a user of the project is a success and changes nothing. ${WRITE_AFTER_LOOKUP}`,
      body: ProjectUserBody,
      response: { 200: StatusSuccess, ...errors(...AUTHED_ERRORS, ...BODY_ERRORS, 'FORBIDDEN', 'NOT_FOUND') },
    },
    handler: async (request) => {
      await projects.removeUser(actorOf(request), request.body);
      return { response: { status: 'success' as const } };
    },
  });
}
