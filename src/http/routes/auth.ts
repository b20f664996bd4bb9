import type { AuthService } from '../../services/auth.service.js';
import { TokenRequest, TokenResponse } from '../schemas/auth.js';
import { errors } from '../schemas/common.js';
import type { App } from '../types.js';

export function authRoutes(app: App, { auth }: { auth: Pick<AuthService, 'issueToken'> }) {
  app.post('/v1/auth/token', {
    config: { public: true },
    schema: {
      tags: ['Authentication'],
      summary: 'Exchange an API credential for an access token',
      description: 'The token is valid for an hour by default. `token` at the top level is kept for existing clients.',
      body: TokenRequest,
      response: { 200: TokenResponse, ...errors('VALIDATION_FAILED', 'INVALID_CREDENTIALS', 'RATE_LIMITED') },
    },
    handler: async (request) => {
      const { token, expiresIn } = await auth.issueToken(request.body.clientId, request.body.clientSecret);
      return { token, response: { token, tokenType: 'Bearer' as const, expiresIn } };
    },
  });
}
