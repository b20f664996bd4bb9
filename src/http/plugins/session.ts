// Browser sessions for the studio: the session cookie authenticates /v1 requests that carry no Authorization header
// (bearer clients are untouched), and state-changing requests so authenticated must prove they come from the app:
// an Origin of this service when the browser sends one, and the session's CSRF token in X-CSRF-Token, which another
// site's form or script cannot read or send (synchronizer-token pattern; SameSite=Lax already keeps the cookie off
// cross-site POSTs in current browsers, this holds in the others too). Registered before authPlugin.
import { timingSafeEqual } from 'node:crypto';
import fastifyCookie from '@fastify/cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../errors.js';
import type { SessionService } from '../../services/session.service.js';
import type { App } from '../types.js';

export const SESSION_COOKIE = 'placard_session';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

declare module 'fastify' {
  interface FastifyRequest {
    /** The browser session of the request, when its cookie authenticated it. */
    session: { token: string; csrfToken: string } | null;
  }
}

export interface SessionPluginDeps {
  sessions: Pick<SessionService, 'authenticate'>;
  publicUrl: string;
}

function sameToken(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export function setSessionCookie(reply: FastifyReply, publicUrl: string, token: string) {
  reply.setCookie(SESSION_COOKIE, token, {
    path: '/',
    httpOnly: true,
    sameSite: 'lax',
    secure: publicUrl.startsWith('https:'),
  });
}

export function clearSessionCookie(reply: FastifyReply, publicUrl: string) {
  reply.clearCookie(SESSION_COOKIE, {
    path: '/',
    httpOnly: true,
    sameSite: 'lax',
    secure: publicUrl.startsWith('https:'),
  });
}

export async function sessionPlugin(app: App, { sessions, publicUrl }: SessionPluginDeps) {
  await app.register(fastifyCookie);
  app.decorateRequest('session', null);
  const publicOrigin = new URL(publicUrl).origin;

  // A request with a bearer token or no session cookie (every API call) passes without a promise of its own.
  app.addHook('onRequest', (request, reply, done) => {
    if (!request.url.startsWith('/v1/') || request.headers.authorization) return done();
    const token = request.cookies[SESSION_COOKIE];
    if (!token) return done();
    fromSession(request, reply, token).then(() => done(), done);
  });

  async function fromSession(request: FastifyRequest, reply: FastifyReply, token: string): Promise<void> {
    const found = await sessions.authenticate(token);
    if (!found) {
      clearSessionCookie(reply, publicUrl);
      if (!request.routeOptions.config.public) {
        request.authError = new AppError('UNAUTHENTICATED', 'your session has expired or was ended; sign in again');
      }
      return;
    }
    if (!SAFE_METHODS.has(request.method)) {
      const origin = request.headers.origin;
      const ownOrigin = `${request.protocol}://${request.headers.host}`;
      if (origin && origin !== publicOrigin && origin !== ownOrigin) {
        throw new AppError('CSRF_REJECTED', `a request from ${origin} cannot use the session of this site`);
      }
      const sent = request.headers['x-csrf-token'];
      if (typeof sent !== 'string' || !sameToken(sent, found.csrfToken)) {
        throw new AppError(
          'CSRF_REJECTED',
          'X-CSRF-Token: a request authenticated by the session cookie must send the csrfToken of GET /v1/auth/session',
        );
      }
    }
    request.actor = found.actor;
    request.session = { token, csrfToken: found.csrfToken };
  }
}
