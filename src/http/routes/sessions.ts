// Sign-in for people (issue 18): invites, password login and browser sessions. The cookie is set and cleared here;
// plugins/session.ts reads it on every /v1 request.
import { Type } from 'typebox';
import type { SessionService } from '../../services/session.service.js';
import { actorOf } from '../plugins/auth.js';
import { clearSessionCookie, setSessionCookie } from '../plugins/session.js';
import { AUTHED_ERRORS, errors, POST_ERRORS, StatusSuccess } from '../schemas/common.js';
import {
  AcceptInviteBody,
  InviteBody,
  InviteInfoResponse,
  InviteResponse,
  InviteToken,
  LoginBody,
  SessionResponse,
} from '../schemas/sessions.js';
import type { App } from '../types.js';

const tags = ['Authentication'];

export function sessionRoutes(app: App, { sessions, publicUrl }: { sessions: SessionService; publicUrl: string }) {
  app.post('/v1/auth/login', {
    config: { public: true },
    schema: {
      tags,
      summary: 'Sign in with email and password (sets the session cookie)',
      description: 'Rate limited per account and per client address. The answer carries the CSRF token of the session.',
      body: LoginBody,
      response: {
        200: SessionResponse,
        ...errors('VALIDATION_FAILED', 'INVALID_CREDENTIALS', 'RATE_LIMITED', ...POST_ERRORS),
      },
    },
    handler: async (request, reply) => {
      const session = await sessions.login(request.body.email, request.body.password, request.ip);
      setSessionCookie(reply, publicUrl, session.token);
      return { response: { user: await sessions.me(session.actor), csrfToken: session.csrfToken } };
    },
  });

  app.post('/v1/auth/logout', {
    config: { public: true },
    schema: {
      tags,
      summary: 'Sign out (ends this session and clears its cookie)',
      response: { 200: StatusSuccess, ...errors('CSRF_REJECTED', 'RATE_LIMITED', ...POST_ERRORS) },
    },
    handler: async (request, reply) => {
      if (request.session) await sessions.logout(request.session.token);
      clearSessionCookie(reply, publicUrl);
      return { response: { status: 'success' as const } };
    },
  });

  app.post('/v1/auth/logoutEverywhere', {
    config: { permission: 'read' },
    schema: {
      tags,
      summary: 'Sign out everywhere (ends every session of the caller)',
      response: { 200: StatusSuccess, ...errors(...AUTHED_ERRORS, 'CSRF_REJECTED', ...POST_ERRORS) },
    },
    handler: async (request, reply) => {
      await sessions.logoutEverywhere(actorOf(request).userId);
      clearSessionCookie(reply, publicUrl);
      return { response: { status: 'success' as const } };
    },
  });

  app.get('/v1/auth/session', {
    config: { permission: 'read' },
    schema: {
      tags,
      summary: 'Who is signed in, and the CSRF token of the session (null for bearer tokens)',
      response: { 200: SessionResponse, ...errors(...AUTHED_ERRORS) },
    },
    handler: async (request) => ({
      response: { user: await sessions.me(actorOf(request)), csrfToken: request.session?.csrfToken ?? null },
    }),
  });

  app.post('/v1/users/invite', {
    config: { permission: 'team:manage' },
    schema: {
      tags: ['Team users'],
      summary: 'A one-time link for a team user to set a password',
      description: 'The link expires after 7 days and works once; setting the password ends the user’s other sessions.',
      body: InviteBody,
      response: {
        200: InviteResponse,
        ...errors(...AUTHED_ERRORS, 'FORBIDDEN', 'NOT_FOUND', 'CSRF_REJECTED', ...POST_ERRORS),
      },
    },
    handler: async (request) => {
      const link = await sessions.invite(actorOf(request), request.body.userId);
      return { ...link, response: link };
    },
  });

  app.get('/v1/auth/invite/:token', {
    config: { public: true },
    schema: {
      tags,
      summary: 'Whom an invite is for (refused once used or expired)',
      params: Type.Object({ token: InviteToken }),
      response: { 200: InviteInfoResponse, ...errors('VALIDATION_FAILED', 'NOT_FOUND', 'RATE_LIMITED') },
    },
    handler: async (request) => ({ response: await sessions.inviteInfo(request.params.token) }),
  });

  app.post('/v1/auth/invite/accept', {
    config: { public: true },
    schema: {
      tags,
      summary: 'Set a password with an invite, and sign in',
      body: AcceptInviteBody,
      response: { 200: SessionResponse, ...errors('VALIDATION_FAILED', 'NOT_FOUND', 'RATE_LIMITED', ...POST_ERRORS) },
    },
    handler: async (request, reply) => {
      const session = await sessions.acceptInvite(request.body.token, request.body.password);
      setSessionCookie(reply, publicUrl, session.token);
      return { response: { user: await sessions.me(session.actor), csrfToken: session.csrfToken } };
    },
  });
}
