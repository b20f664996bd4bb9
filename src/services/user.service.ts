// Team users and their roles (SPEC §2, §11): Owner rules, unique emails, avatars.
import type { Kysely } from 'kysely';
import type { Actor } from '../domain/actor.js';
import { type PageQuery, pageRequest } from '../domain/page.js';
import { OWNER, ROLES, roleById, roleByName } from '../domain/permissions.js';
import { AppError } from '../errors.js';
import { recordEvent } from '../events/outbox.js';
import type { Dialect } from '../storage/db/database.js';
import {
  createUserRepository,
  type UserRepository,
  type UserRow,
  withTeamLock,
} from '../storage/db/repositories/users.repository.js';
import type { Database } from '../storage/db/schema.js';
import type { ServerKeys } from '../storage/secrets.js';
import { avatarUrl } from './avatar.js';

export interface UserServiceDeps {
  db: Kysely<Database>;
  dialect: Dialect;
  users: Pick<UserRepository, 'list' | 'findByEmail'>;
  keys: ServerKeys;
  publicUrl: string;
}

export function createUserService({ db, dialect, users, keys, publicUrl }: UserServiceDeps) {
  function toNode(row: UserRow) {
    const role = roleById(row.role_id)!;
    return {
      id: row.id,
      name: row.name,
      email: row.email,
      profilePicture: row.profile_picture ?? avatarUrl(publicUrl, keys, row.id),
      role: { id: role.id, name: role.name, description: role.description },
    };
  }

  /** Only an Owner may touch an Owner or make somebody one (SPEC §2). */
  function guardOwnerChange(actor: Actor, target: UserRow | null, newRoleId: number | null) {
    const touchesOwner = target?.role_id === OWNER || newRoleId === OWNER;
    if (touchesOwner && actor.roleId !== OWNER) {
      throw new AppError('FORBIDDEN', 'only an Owner can grant the Owner role or change or delete an Owner');
    }
  }

  return {
    toNode,

    async list(actor: Actor, query: PageQuery & { keyword?: string }) {
      const keyword = query.keyword?.trim() || undefined;
      const page = pageRequest(query, { keyword }, { orderBy: 'CREATED_AT', direction: 'DESC' });
      const result = await users.list(actor.teamId, keyword, page);
      return { ...result, nodes: result.nodes.map(toNode) };
    },

    async create(actor: Actor, input: { name: string; email: string; role: string }) {
      const role = roleByName(input.role);
      if (!role) {
        throw new AppError(
          'VALIDATION_FAILED',
          `role: must be one of ${ROLES.map((r) => r.name).join(', ')}, received "${input.role}"`,
          {
            details: [{ path: '/role', in: 'body', message: `must be one of ${ROLES.map((r) => r.name).join(', ')}` }],
          },
        );
      }
      guardOwnerChange(actor, null, role.id);
      const email = input.email.trim();
      if (await users.findByEmail(actor.teamId, email)) {
        throw new AppError('EMAIL_TAKEN', `email: ${email} already belongs to a user of this team`);
      }
      try {
        // The user and its event commit together: the outbox never misses a user, nor reports one that is not there.
        const row = await db.transaction().execute(async (tx) => {
          const inserted = await createUserRepository(tx).insert({
            teamId: actor.teamId,
            name: input.name.trim(),
            email,
            roleId: role.id,
          });
          await recordEvent(tx, { teamId: actor.teamId, action: 'user/create', data: { user: toNode(inserted) } });
          return inserted;
        });
        return { id: row.id, name: row.name, email: row.email };
      } catch (error) {
        // The unique index settles a race between two creations of the same email.
        if (/unique|duplicate/i.test(String((error as Error).message))) {
          throw new AppError('EMAIL_TAKEN', `email: ${email} already belongs to a user of this team`);
        }
        throw error;
      }
    },

    async delete(actor: Actor, email: string) {
      await withTeamLock(db, dialect, actor.teamId, async (tx, trx) => {
        const target = await tx.findByEmail(actor.teamId, email.trim());
        if (!target) throw new AppError('NOT_FOUND', `email: no user of this team has the email ${email}`);
        guardOwnerChange(actor, target, null);
        if (target.role_id === OWNER && (await tx.countOwners(actor.teamId)) <= 1) {
          throw new AppError(
            'LAST_OWNER',
            `${target.email} is the last Owner of the team; make another user Owner first`,
          );
        }
        await tx.softDelete(actor.teamId, target.id);
        await recordEvent(trx, { teamId: actor.teamId, action: 'user/delete', data: { user: toNode(target) } });
      });
    },

    async updateRole(actor: Actor, input: { userId: number; roleId: number }) {
      return withTeamLock(db, dialect, actor.teamId, async (tx) => {
        const target = await tx.findById(actor.teamId, input.userId);
        if (!target) throw new AppError('NOT_FOUND', `userId: no user ${input.userId} in this team`);
        guardOwnerChange(actor, target, input.roleId);
        if (target.role_id === OWNER && input.roleId !== OWNER && (await tx.countOwners(actor.teamId)) <= 1) {
          throw new AppError(
            'LAST_OWNER',
            `${target.email} is the last Owner of the team; make another user Owner first`,
          );
        }
        await tx.setRole(actor.teamId, target.id, input.roleId);
        return toNode({ ...target, role_id: input.roleId });
      });
    },
  };
}

export type UserService = ReturnType<typeof createUserService>;
