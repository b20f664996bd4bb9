import { AUTHED_ERRORS, errors, POST_ERRORS, StatusSuccess } from '../schemas/common.js';
import {
  CreateProjectBody,
  DeleteProjectBody,
  ListProjectsQuery,
  ListProjectsResponse,
  ProjectResponse,
  UpdateProjectBody,
} from '../schemas/projects.js';
import type { App } from '../types.js';
import { notImplemented } from './not-implemented.js';

const tags = ['Projects'];

export function projectsRoutes(app: App) {
  app.get('/v1/projects', {
    config: { permission: 'read' },
    schema: {
      tags,
      summary: 'List the projects the caller can see',
      description:
        'Owners and Admins see every project of the team; Editors and Viewers the projects they are users of.',
      querystring: ListProjectsQuery,
      response: { 200: ListProjectsResponse, ...errors(...AUTHED_ERRORS, 'INVALID_CURSOR', 'NOT_IMPLEMENTED') },
    },
    handler: async () => notImplemented('GET /v1/projects'),
  });

  app.post('/v1/projects', {
    config: { permission: 'content:write' },
    schema: {
      tags,
      summary: 'Create a project',
      description: 'The creator becomes a user of the project.',
      body: CreateProjectBody,
      response: {
        200: ProjectResponse,
        ...errors(...AUTHED_ERRORS, 'FORBIDDEN', 'NOT_FOUND', ...POST_ERRORS, 'NOT_IMPLEMENTED'),
      },
    },
    handler: async () => notImplemented('POST /v1/projects'),
  });

  app.put('/v1/projects', {
    config: { permission: 'content:write' },
    schema: {
      tags,
      summary: 'Update a project',
      body: UpdateProjectBody,
      response: { 200: ProjectResponse, ...errors(...AUTHED_ERRORS, 'FORBIDDEN', 'NOT_FOUND', 'NOT_IMPLEMENTED') },
    },
    handler: async () => notImplemented('PUT /v1/projects'),
  });

  app.delete('/v1/projects', {
    config: { permission: 'content:write' },
    schema: {
      tags,
      summary: 'Delete a project with its folders and designs',
      body: DeleteProjectBody,
      response: { 200: StatusSuccess, ...errors(...AUTHED_ERRORS, 'FORBIDDEN', 'NOT_FOUND', 'NOT_IMPLEMENTED') },
    },
    handler: async () => notImplemented('DELETE /v1/projects'),
  });
}
