import type { CredentialService } from '../../services/credential.service.js';
import { actorOf } from '../plugins/auth.js';
import {
  CreateCredentialBody,
  CreateCredentialResponse,
  DeleteCredentialBody,
  ListCredentialsQuery,
  ListCredentialsResponse,
} from '../schemas/api-credentials.js';
import { AUTHED_ERRORS, errors, POST_ERRORS, StatusSuccess } from '../schemas/common.js';
import type { App } from '../types.js';

const tags = ['API credentials'];

export function apiCredentialsRoutes(app: App, { credentials }: { credentials: CredentialService }) {
  app.get('/v1/apiCredentials', {
    config: { permission: 'team:manage' },
    schema: {
      tags,
      summary: 'List the API credentials of the team',
      querystring: ListCredentialsQuery,
      response: { 200: ListCredentialsResponse, ...errors(...AUTHED_ERRORS, 'FORBIDDEN', 'INVALID_CURSOR') },
    },
    handler: async (request) => ({ response: await credentials.list(actorOf(request), request.query) }),
  });

  app.post('/v1/apiCredentials', {
    config: { permission: 'team:manage' },
    schema: {
      tags,
      summary: 'Create an API credential',
      description: 'The credential acts as `userId` (default: the caller). The secret is in this response only.',
      body: CreateCredentialBody,
      response: {
        200: CreateCredentialResponse,
        ...errors(...AUTHED_ERRORS, ...POST_ERRORS, 'FORBIDDEN', 'NOT_FOUND'),
      },
    },
    handler: async (request) => ({ response: await credentials.create(actorOf(request), request.body) }),
  });

  app.delete('/v1/apiCredentials', {
    config: { permission: 'team:manage' },
    schema: {
      tags,
      summary: 'Delete an API credential and revoke its tokens',
      body: DeleteCredentialBody,
      response: { 200: StatusSuccess, ...errors(...AUTHED_ERRORS, 'FORBIDDEN', 'NOT_FOUND') },
    },
    handler: async (request) => {
      await credentials.delete(actorOf(request), request.body.clientId);
      return { response: { status: 'success' as const } };
    },
  });
}
