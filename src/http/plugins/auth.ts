// Authentication, rate limiting and permissions, in that order, for every /v1 route that is not public.
// The budget is charged before an authentication failure is answered, so guessing tokens is rate limited too
// (by client address, since there is no team yet).
import type { FastifyReply, FastifyRequest } from 'fastify';
import { can, PERMISSIONS } from '../../domain/permissions.js';
import { AppError } from '../../errors.js';
import type { AuthService } from '../../services/auth.service.js';
import type { App } from '../types.js';
import type { RateDecision, RateLimiter } from './rate-limit.js';

export interface AuthPluginDeps {
  /** `known`: the synchronous path for a token and credential already checked (absent: always authenticate). */
  auth: Pick<AuthService, 'authenticate'> & Partial<Pick<AuthService, 'known'>>;
  rateLimiter: RateLimiter;
  rateLimitEnabled: boolean;
}

const ROLE_NAMES: Record<number, string> = { 1: 'Owner', 2: 'Admin', 3: 'Editor', 4: 'Viewer' };

export function authPlugin(app: App, { auth, rateLimiter, rateLimitEnabled }: AuthPluginDeps) {
  app.decorateRequest('actor', null);
  app.decorateRequest('authError', null);
  app.decorateRequest('exportBudgetKey', null);

  /** Too many refused export requests in this window: refused before they are read (issue 14). */
  function refuseInvalid(invalid: RateDecision): never {
    throw new AppError(
      'RATE_LIMITED',
      `${invalid.limit} export requests were refused as invalid in this window; fix the request and retry in ${invalid.resetSeconds} s`,
      { headers: { 'Retry-After': String(invalid.resetSeconds) } },
    );
  }

  /**
   * The export budget spent, and the invalid-request budget looked at, in one Redis round trip rather than two in a
   * row (issue 21): both are sent at once, and a request refused for its invalid ones gives the export back.
   */
  async function hitExports(key: string): Promise<RateDecision> {
    const [invalid, decision] = await Promise.all([
      rateLimiter.peek('invalidExports', key),
      rateLimiter.hit('exports', key),
    ]);
    if (!invalid.allowed) {
      await rateLimiter.refund('exports', key);
      refuseInvalid(invalid);
    }
    return decision;
  }

  // Only accepted exports count against the export limit (issue 14): a refused export request gives its export
  // budget back; one refused as invalid (400, 404, 422…) spends the budget of invalid requests instead, and one
  // refused for capacity (TEAM_QUEUE_FULL, a full queue) spends nothing.
  // A callback hook: an async one cost every request a promise and a microtask turn (issue 21).
  app.addHook('onSend', (request, reply, payload, done) => {
    const key = request.exportBudgetKey;
    if (!key || reply.statusCode < 400) return done(null, payload);
    request.exportBudgetKey = null;
    const invalid = reply.statusCode < 500 && reply.statusCode !== 429;
    rateLimiter
      .refund('exports', key)
      .then(() => (invalid ? rateLimiter.hit('invalidExports', key) : undefined))
      .then(
        () => done(null, payload),
        (error: Error) => done(error),
      );
  });

  /** The permission check and the budget's key, once the actor (or the failure) is known. */
  function admit(request: FastifyRequest, limited: boolean, needsAuth: boolean): void {
    const config = request.routeOptions.config;
    if (request.authError) throw request.authError;
    if (limited && rateLimitEnabled && request.actor && (config.rateGroup ?? 'other') === 'exports') {
      request.exportBudgetKey = `team:${request.actor.teamId}`;
    }
    if (needsAuth && request.actor && config.permission && !can(request.actor.roleId, config.permission)) {
      const needed = ROLE_NAMES[PERMISSIONS[config.permission]];
      throw new AppError(
        'FORBIDDEN',
        `${request.method} ${request.routeOptions.url} needs the ${needed} role or a stronger one; the caller is ${ROLE_NAMES[request.actor.roleId]}`,
      );
    }
  }

  async function authenticateAndLimit(
    request: FastifyRequest,
    reply: FastifyReply,
    limited: boolean,
    needsAuth: boolean,
  ): Promise<void> {
    const config = request.routeOptions.config;
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
      const decision = group === 'exports' ? await hitExports(key) : await rateLimiter.hit(group, key);
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
    admit(request, limited, needsAuth);
  }

  // A callback hook with a synchronous path: a token seen before whose credential is kept, and no rate limit to
  // consult, needs no promise (issue 21: an async hook is a promise and a microtask turn on every request).
  app.addHook('onRequest', (request, reply, done) => {
    const limited = request.url.startsWith('/v1/') || request.url.startsWith('/share/');
    const needsAuth = request.url.startsWith('/v1/') && !request.routeOptions.config.public;
    if (needsAuth && !request.actor && !request.authError) {
      const actor = auth.known?.(request.headers.authorization);
      if (actor) request.actor = actor;
    }
    if ((limited && rateLimitEnabled) || (needsAuth && !request.actor && !request.authError)) {
      authenticateAndLimit(request, reply, limited, needsAuth).then(() => done(), done);
      return;
    }
    try {
      admit(request, limited, needsAuth);
    } catch (error) {
      return done(error as Error);
    }
    done();
  });
}

/** The authenticated actor of a route that is not public; a route only runs after authPlugin has set it. */
export function actorOf(request: { actor: import('../types.js').Actor | null }) {
  if (!request.actor) throw new AppError('UNAUTHENTICATED', 'authentication is required');
  return request.actor;
}
