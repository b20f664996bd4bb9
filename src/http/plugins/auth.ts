// Authentication, rate limiting and permissions, in that order, for every /v1 route that is not public.
// The budget is charged before an authentication failure is answered, so guessing tokens is rate limited too
// (by client address, since there is no team yet).
import { can, PERMISSIONS } from '../../domain/permissions.js';
import { AppError } from '../../errors.js';
import type { AuthService } from '../../services/auth.service.js';
import type { App } from '../types.js';
import type { RateLimiter } from './rate-limit.js';

export interface AuthPluginDeps {
  auth: Pick<AuthService, 'authenticate'>;
  rateLimiter: RateLimiter;
  rateLimitEnabled: boolean;
}

const ROLE_NAMES: Record<number, string> = { 1: 'Owner', 2: 'Admin', 3: 'Editor', 4: 'Viewer' };

export function authPlugin(app: App, { auth, rateLimiter, rateLimitEnabled }: AuthPluginDeps) {
  app.decorateRequest('actor', null);
  app.decorateRequest('authError', null);

  app.addHook('onRequest', async (request, reply) => {
    const config = request.routeOptions.config;
    const limited = request.url.startsWith('/v1/') || request.url.startsWith('/share/');
    const needsAuth = request.url.startsWith('/v1/') && !config.public;

    // A browser session (plugins/session.ts, registered first) may have set the actor or the failure already.
    if (needsAuth && !request.actor && !request.authError) {
      try {
        request.actor = await auth.authenticate(request.headers.authorization);
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        request.authError = error;
      }
    }

    if (limited && rateLimitEnabled) {
      const group = config.rateGroup ?? 'other';
      const key = request.actor ? `team:${request.actor.teamId}` : `ip:${request.ip}`;
      const decision = await rateLimiter.hit(group, key);
      reply.header('RateLimit-Limit', decision.limit);
      reply.header('RateLimit-Remaining', decision.remaining);
      reply.header('RateLimit-Reset', decision.resetSeconds);
      if (!decision.allowed) {
        throw new AppError(
          'RATE_LIMITED',
          `rate limit of ${decision.limit} requests per ${group === 'exports' ? 'export route ' : ''}window exceeded; retry in ${decision.resetSeconds} s`,
          { headers: { 'Retry-After': String(decision.resetSeconds) } },
        );
      }
    }

    if (request.authError) throw request.authError;
    if (needsAuth && request.actor && config.permission && !can(request.actor.roleId, config.permission)) {
      const needed = ROLE_NAMES[PERMISSIONS[config.permission]];
      throw new AppError(
        'FORBIDDEN',
        `${request.method} ${request.routeOptions.url} needs the ${needed} role or a stronger one; the caller is ${ROLE_NAMES[request.actor.roleId]}`,
      );
    }
  });
}

/** The authenticated actor of a route that is not public; a route only runs after authPlugin has set it. */
export function actorOf(request: { actor: import('../types.js').Actor | null }) {
  if (!request.actor) throw new AppError('UNAUTHENTICATED', 'authentication is required');
  return request.actor;
}
