import { AUTHED_ERRORS, errors, POST_ERRORS, StatusSuccess } from '../schemas/common.js';
import { ListProjectUsersQuery, ListProjectUsersResponse, ProjectUserBody } from '../schemas/project-users.js';
import type { App } from '../types.js';
import { notImplemented } from './not-implemented.js';

const tags = ['Project users'];

export function projectUsersRoutes(app: App) {
  app.get('/v1/project/users', {
    config: { permission: 'read' },
    schema: {
      tags,
      summary: 'List the users of a project',
      querystring: ListProjectUsersQuery,
      response: { 200: ListProjectUsersResponse, ...errors(...AUTHED_ERRORS, 'NOT_FOUND', 'NOT_IMPLEMENTED') },
    },
    handler: async () => notImplemented('GET /v1/project/users'),
  });

  app.post('/v1/project/users', {
    config: { permission: 'content:write' },
    schema: {
      tags,
      summary: 'Add a team user to a project',
      description: 'Adding a user twice is a success and changes nothing; a user of another team is a 404.',
      body: ProjectUserBody,
      response: {
        200: StatusSuccess,
        ...errors(...AUTHED_ERRORS, 'FORBIDDEN', 'NOT_FOUND', ...POST_ERRORS, 'NOT_IMPLEMENTED'),
      },
    },
    handler: async () => notImplemented('POST /v1/project/users'),
  });

  app.delete('/v1/project/users', {
    config: { permission: 'content:write' },
    schema: {
      tags,
      summary: 'Remove a user from a project',
      body: ProjectUserBody,
      response: { 200: StatusSuccess, ...errors(...AUTHED_ERRORS, 'FORBIDDEN', 'NOT_FOUND', 'NOT_IMPLEMENTED') },
    },
    handler: async () => notImplemented('DELETE /v1/project/users'),
  });
}
