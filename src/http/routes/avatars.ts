// Generated avatars (SPEC §11): public but signed, so user ids cannot be walked to read names.
import { Type } from 'typebox';
import { AppError } from '../../errors.js';
import { avatarSignatureValid, avatarSvg } from '../../services/avatar.js';
import type { UserRepository } from '../../storage/db/repositories/users.repository.js';
import type { ServerKeys } from '../../storage/secrets.js';
import { errors } from '../schemas/common.js';
import type { App } from '../types.js';

export function avatarRoutes(app: App, deps: { users: Pick<UserRepository, 'findAnyById'>; keys: ServerKeys }) {
  app.get('/avatars/:file', {
    config: { public: true },
    schema: {
      tags: ['Team users'],
      summary: 'Generated profile picture (SVG with initials)',
      params: Type.Object({ file: Type.String({ pattern: '^[0-9]{1,10}\\.svg$' }) }),
      querystring: Type.Object({ s: Type.String({ maxLength: 100 }) }),
      response: { ...errors('VALIDATION_FAILED', 'NOT_FOUND') },
    },
    handler: async (request, reply) => {
      const userId = Number.parseInt(request.params.file, 10);
      const user = avatarSignatureValid(deps.keys, userId, request.query.s)
        ? await deps.users.findAnyById(userId)
        : undefined;
      if (!user) throw new AppError('NOT_FOUND', 'no such avatar');
      return reply
        .header('content-type', 'image/svg+xml; charset=utf-8')
        .header('cache-control', 'public, max-age=86400')
        .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'")
        .send(avatarSvg(user.id, user.name));
    },
  });
}
