// API credentials (SPEC §2 extension): created for a user of the team, secret shown once, deletion revokes tokens.
import { randomUUID } from 'node:crypto';
import type { Actor } from '../domain/actor.js';
import { type PageQuery, pageRequest } from '../domain/page.js';
import { OWNER } from '../domain/permissions.js';
import { AppError } from '../errors.js';
import type { CredentialRepository, CredentialRow } from '../storage/db/repositories/credentials.repository.js';
import type { UserRepository } from '../storage/db/repositories/users.repository.js';
import { hashSecret, newClientSecret } from './secret-hash.js';

export interface CredentialServiceDeps {
  credentials: Pick<CredentialRepository, 'list' | 'insert' | 'delete'>;
  users: Pick<UserRepository, 'findById'>;
}

function toNode(row: CredentialRow) {
  return {
    clientId: row.client_id,
    name: row.name,
    userId: row.user_id,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
  };
}

export function createCredentialService({ credentials, users }: CredentialServiceDeps) {
  return {
    async list(actor: Actor, query: PageQuery) {
      const page = pageRequest(query, {}, { orderBy: 'CREATED_AT', direction: 'DESC' });
      const result = await credentials.list(actor.teamId, page);
      return { ...result, nodes: result.nodes.map(toNode) };
    },

    /** Creates a credential for `userId` (default: the caller). The secret is returned here and never again. */
    async create(actor: Actor, input: { userId?: number; name: string }) {
      const userId = input.userId ?? actor.userId;
      const user = await users.findById(actor.teamId, userId);
      if (!user) throw new AppError('NOT_FOUND', `userId: no user ${userId} in this team`);
      // A credential acts with its user's role: an Admin must not mint Owner power for itself.
      if (user.role_id === OWNER && actor.roleId !== OWNER) {
        throw new AppError('FORBIDDEN', 'only an Owner can create a credential for an Owner');
      }
      const clientSecret = newClientSecret();
      const row = await credentials.insert({
        clientId: randomUUID(),
        teamId: actor.teamId,
        userId,
        name: input.name.trim(),
        secretHash: await hashSecret(clientSecret),
        createdBy: actor.userId,
      });
      return { ...toNode(row), clientSecret };
    },

    async delete(actor: Actor, clientId: string) {
      const deleted = await credentials.delete(actor.teamId, clientId);
      if (!deleted) throw new AppError('NOT_FOUND', `clientId: no API credential ${clientId} in this team`);
    },
  };
}

export type CredentialService = ReturnType<typeof createCredentialService>;
