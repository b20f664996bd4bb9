// Team users. Deleted users stay as rows (deleted_at set) so that "created by" keeps a name.

import type { Kysely } from 'kysely';
import type { PageRequest } from '../../../domain/page.js';
import { containsIgnoringCase } from '../contains.js';
import { now } from '../database.js';
import { invalidate } from '../invalidation.js';
import { paginate } from '../paginate.js';
import type { Database } from '../schema.js';

export interface UserRow {
  id: number;
  team_id: number;
  name: string;
  email: string;
  role_id: number;
  profile_picture: string | null;
  created_at: string;
}

const COLUMNS = ['id', 'team_id', 'name', 'email', 'role_id', 'profile_picture', 'created_at'] as const;

export function createUserRepository(db: Kysely<Database>) {
  return {
    async findById(teamId: number, id: number): Promise<UserRow | undefined> {
      return db
        .selectFrom('users')
        .select(COLUMNS)
        .where('team_id', '=', teamId)
        .where('id', '=', id)
        .where('deleted_at', 'is', null)
        .executeTakeFirst();
    },

    /** Any user of any team, deleted or not (avatars are drawn for names in history too). */
    async findAnyById(id: number): Promise<{ id: number; name: string } | undefined> {
      return db.selectFrom('users').select(['id', 'name']).where('id', '=', id).executeTakeFirst();
    },

    /** Live users with this email in any team (the admin CLI addresses users by email). */
    async findEverywhereByEmail(email: string): Promise<UserRow[]> {
      return db
        .selectFrom('users')
        .select(COLUMNS)
        .where((eb) => eb(eb.fn('lower', ['email']), '=', email.toLowerCase()))
        .where('deleted_at', 'is', null)
        .execute();
    },

    async findByEmail(teamId: number, email: string): Promise<UserRow | undefined> {
      return db
        .selectFrom('users')
        .select(COLUMNS)
        .where('team_id', '=', teamId)
        .where((eb) => eb(eb.fn('lower', ['email']), '=', email.toLowerCase()))
        .where('deleted_at', 'is', null)
        .executeTakeFirst();
    },

    async list(teamId: number, keyword: string | undefined, page: PageRequest) {
      let query = db.selectFrom('users').select(COLUMNS).where('team_id', '=', teamId).where('deleted_at', 'is', null);
      if (keyword) {
        query = query.where((eb) =>
          eb.or([containsIgnoringCase(eb.ref('name'), keyword), containsIgnoringCase(eb.ref('email'), keyword)]),
        );
      }
      return paginate<UserRow>(query, page, 'id', { NAME: 'name', CREATED_AT: 'created_at', UPDATED_AT: 'updated_at' });
    },

    async insert(user: { teamId: number; name: string; email: string; roleId: number }): Promise<UserRow> {
      const at = now();
      return db
        .insertInto('users')
        .values({
          team_id: user.teamId,
          name: user.name,
          email: user.email,
          role_id: user.roleId,
          profile_picture: null,
          created_at: at,
          updated_at: at,
          deleted_at: null,
        })
        .returning(COLUMNS)
        .executeTakeFirstOrThrow();
    },

    async setRole(teamId: number, id: number, roleId: number): Promise<void> {
      await db
        .updateTable('users')
        .set({ role_id: roleId, updated_at: now() })
        .where('team_id', '=', teamId)
        .where('id', '=', id)
        .execute();
      invalidate('auth');
    },

    /** Marks the user deleted and deletes its credentials, which revokes every token minted from them. */
    async softDelete(teamId: number, id: number): Promise<void> {
      // Both writes or neither; the service calls this inside withTeamLock's transaction, and Kysely cannot nest one.
      const run = async (tx: Kysely<Database>) => {
        const at = now();
        await tx
          .updateTable('users')
          .set({ deleted_at: at, updated_at: at })
          .where('team_id', '=', teamId)
          .where('id', '=', id)
          .execute();
        await tx.deleteFrom('api_credentials').where('team_id', '=', teamId).where('user_id', '=', id).execute();
      };
      await (db.isTransaction ? run(db) : db.transaction().execute(run));
      invalidate('auth');
    },

    async countOwners(teamId: number): Promise<number> {
      const row = await db
        .selectFrom('users')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('team_id', '=', teamId)
        .where('role_id', '=', 1)
        .where('deleted_at', 'is', null)
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    },
  };
}

export type UserRepository = ReturnType<typeof createUserRepository>;

/**
 * Runs `fn` while holding the team's row lock, so that checks such as "is this the last Owner?" and the change
 * they guard cannot interleave with another request's (SQLite serialises writers; PostgreSQL needs FOR UPDATE).
 */
export async function withTeamLock<T>(
  db: Kysely<Database>,
  dialect: 'sqlite' | 'postgres',
  teamId: number,
  fn: (users: UserRepository, tx: Kysely<Database>) => Promise<T>,
): Promise<T> {
  const result = await db.transaction().execute(async (tx) => {
    const lock = tx.selectFrom('teams').select('id').where('id', '=', teamId);
    await (dialect === 'postgres' ? lock.forUpdate() : lock).execute();
    return fn(createUserRepository(tx), tx);
  });
  // A user's role or deletion changed in the transaction reaches the credential cache once committed (an
  // invalidation inside it could be followed by a read of the row as it was before the commit).
  invalidate('auth');
  return result;
}
