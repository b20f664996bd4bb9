import type { Kysely } from 'kysely';
import { now } from '../database.js';
import type { Database } from '../schema.js';

export function createTeamRepository(db: Kysely<Database>) {
  return {
    async insert(name: string): Promise<{ id: number; name: string }> {
      return db
        .insertInto('teams')
        .values({ name, created_at: now() })
        .returning(['id', 'name'])
        .executeTakeFirstOrThrow();
    },
    async count(): Promise<number> {
      const row = await db
        .selectFrom('teams')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    },
  };
}

export type TeamRepository = ReturnType<typeof createTeamRepository>;
