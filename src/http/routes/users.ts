import { ROLES } from '../../domain/permissions.js';
import type { UserService } from '../../services/user.service.js';
import { actorOf } from '../plugins/auth.js';
import { AUTHED_ERRORS, errors, POST_ERRORS, StatusSuccess } from '../schemas/common.js';
import {
  CreateUserBody,
  CreateUserResponse,
  DeleteUserBody,
  ListRolesResponse,
  ListUsersQuery,
  ListUsersResponse,
  UpdateRoleBody,
  UpdateRoleResponse,
} from '../schemas/users.js';
import type { App } from '../types.js';

const tags = ['Team users'];

export function usersRoutes(app: App, { users }: { users: UserService }) {
  app.get('/v1/users', {
    config: { permission: 'read' },
    schema: {
      tags,
      summary: 'List the users of the team',
      querystring: ListUsersQuery,
      response: { 200: ListUsersResponse, ...errors(...AUTHED_ERRORS, 'INVALID_CURSOR') },
    },
    handler: async (request) => ({ response: await users.list(actorOf(request), request.query) }),
  });

  app.post('/v1/users', {
    config: { permission: 'team:manage' },
    schema: {
      tags,
      summary: 'Add a user to the team',
      body: CreateUserBody,
      response: { 200: CreateUserResponse, ...errors(...AUTHED_ERRORS, ...POST_ERRORS, 'FORBIDDEN', 'EMAIL_TAKEN') },
    },
    handler: async (request) => ({ response: await users.create(actorOf(request), request.body) }),
  });

  app.delete('/v1/users', {
    config: { permission: 'team:manage' },
    schema: {
      tags,
      summary: 'Remove a user from the team',
      description: 'The seed writes the method as DEL. Removing a user revokes its API credentials at once.',
      body: DeleteUserBody,
      response: { 200: StatusSuccess, ...errors(...AUTHED_ERRORS, 'FORBIDDEN', 'NOT_FOUND', 'LAST_OWNER') },
    },
    handler: async (request) => {
      await users.delete(actorOf(request), request.body.email);
      return { response: { status: 'success' as const } };
    },
  });

  app.put('/v1/users/updateTeamUserRole', {
    config: { permission: 'team:manage' },
    schema: {
      tags,
      summary: 'Change the role of a team user',
      body: UpdateRoleBody,
      response: { 200: UpdateRoleResponse, ...errors(...AUTHED_ERRORS, 'FORBIDDEN', 'NOT_FOUND', 'LAST_OWNER') },
    },
    handler: async (request) => ({ response: await users.updateRole(actorOf(request), request.body) }),
  });

  app.get('/v1/roles', {
    config: { permission: 'read' },
    schema: {
      tags,
      summary: 'List the team roles',
      response: { 200: ListRolesResponse, ...errors(...AUTHED_ERRORS) },
    },
    handler: async () => ({ response: ROLES.map((r) => ({ ...r })) }),
  });
}
