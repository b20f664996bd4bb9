// API credentials: a public client id and a scrypt hash of the secret. Deleting the row revokes its tokens.
import type { Kysely } from 'kysely';
import type { PageRequest } from '../../../domain/page.js';
import { now } from '../database.js';
import { invalidate } from '../invalidation.js';
import { paginate } from '../paginate.js';
import type { Database } from '../schema.js';

export interface CredentialRow {
  id: number;
  client_id: string;
  team_id: number;
  user_id: number;
  name: string;
  created_at: string;
  last_used_at: string | null;
}

/** What the bearer check needs in one round trip: the credential and the live user it belongs to. */
export interface CredentialWithUser {
  id: number;
  team_id: number;
  user_id: number;
  user_name: string;
  role_id: number;
}

const COLUMNS = ['id', 'client_id', 'team_id', 'user_id', 'name', 'created_at', 'last_used_at'] as const;

export function createCredentialRepository(db: Kysely<Database>) {
  return {
    async findSecretByClientId(clientId: string) {
      return db
        .selectFrom('api_credentials as c')
        .innerJoin('users as u', 'u.id', 'c.user_id')
        .select(['c.id', 'c.team_id', 'c.user_id', 'c.secret_hash'])
        .where('c.client_id', '=', clientId)
        .where('u.deleted_at', 'is', null)
        .executeTakeFirst();
    },

    async findActive(id: number): Promise<CredentialWithUser | undefined> {
      return db
        .selectFrom('api_credentials as c')
        .innerJoin('users as u', 'u.id', 'c.user_id')
        .select(['c.id', 'c.team_id', 'c.user_id', 'u.name as user_name', 'u.role_id'])
        .where('c.id', '=', id)
        .where('u.deleted_at', 'is', null)
        .executeTakeFirst();
    },

    async findByClientId(teamId: number, clientId: string): Promise<CredentialRow | undefined> {
      return db
        .selectFrom('api_credentials')
        .select(COLUMNS)
        .where('team_id', '=', teamId)
        .where('client_id', '=', clientId)
        .executeTakeFirst();
    },

    async list(teamId: number, page: PageRequest) {
      const query = db.selectFrom('api_credentials').select(COLUMNS).where('team_id', '=', teamId);
      return paginate<CredentialRow>(query, page, 'id', {
        NAME: 'name',
        CREATED_AT: 'created_at',
        UPDATED_AT: 'created_at',
      });
    },

    async insert(row: {
      clientId: string;
      teamId: number;
      userId: number;
      name: string;
      secretHash: string;
      createdBy: number | null;
    }): Promise<CredentialRow> {
      return db
        .insertInto('api_credentials')
        .values({
          client_id: row.clientId,
          team_id: row.teamId,
          user_id: row.userId,
          name: row.name,
          secret_hash: row.secretHash,
          created_by: row.createdBy,
          created_at: now(),
        })
        .returning(COLUMNS)
        .executeTakeFirstOrThrow();
    },

    async delete(teamId: number, clientId: string): Promise<number> {
      const result = await db
        .deleteFrom('api_credentials')
        .where('team_id', '=', teamId)
        .where('client_id', '=', clientId)
        .executeTakeFirst();
      // Committed (one statement): the tokens of the credential are refused from the next request on.
      invalidate('auth');
      return Number(result.numDeletedRows);
    },

    async touch(id: number): Promise<void> {
      await db.updateTable('api_credentials').set({ last_used_at: now() }).where('id', '=', id).execute();
    },
  };
}

export type CredentialRepository = ReturnType<typeof createCredentialRepository>;
