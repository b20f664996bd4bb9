// What render URLs read: the sealed secrets of teams (migration 0016: read, made on first use, rotated with an
// overlap), and designs by their public hash without a caller (the signature is the authorisation).
import type { Kysely, Selectable } from 'kysely';
import type { Database, RenderUrlSecretsTable } from '../schema.js';

export type RenderUrlSecretRow = Selectable<RenderUrlSecretsTable>;

/** What a render URL needs of its design before deciding to render: no document (it can be large). */
export interface RenderUrlDesignHead {
  id: number;
  hash: string;
  team_id: number;
  revision: number;
}

export function createRenderUrlRepository(db: Kysely<Database>) {
  async function find(teamId: number): Promise<RenderUrlSecretRow | undefined> {
    return db.selectFrom('render_url_secrets').selectAll().where('team_id', '=', teamId).executeTakeFirst();
  }

  return {
    find,

    async designHead(hash: string): Promise<RenderUrlDesignHead | undefined> {
      return db
        .selectFrom('designs')
        .select(['id', 'hash', 'team_id', 'revision'])
        .where('hash', '=', hash)
        .executeTakeFirst();
    },

    /** The document of a design at a revision, or undefined when it changed since (the caller looks again). */
    async designDocument(id: number, revision: number): Promise<string | undefined> {
      const row = await db
        .selectFrom('designs')
        .select('document')
        .where('id', '=', id)
        .where('revision', '=', revision)
        .executeTakeFirst();
      return row?.document;
    },

    async versionDocument(designId: number, versionId: string): Promise<string | undefined> {
      const row = await db
        .selectFrom('design_versions')
        .select('document')
        .where('design_id', '=', designId)
        .where('id', '=', versionId)
        .executeTakeFirst();
      return row?.document;
    },

    /** Stores `sealed` unless the team has a secret already; the team's row either way (the first writer wins). */
    async ensure(teamId: number, sealed: string, at: string): Promise<RenderUrlSecretRow> {
      await db
        .insertInto('render_url_secrets')
        .values({ team_id: teamId, secret_sealed: sealed, created_at: at })
        .onConflict((oc) => oc.column('team_id').doNothing())
        .execute();
      const row = await find(teamId);
      if (!row) throw new Error(`render URL secret of team ${teamId} vanished after its insert`);
      return row;
    },

    /**
     * Makes `sealed` the current secret; the current one becomes the previous, accepted until `previousValidUntil`
     * (the one before it stops at once). One statement, so two rotations at once never lose the current secret.
     */
    async rotate(teamId: number, sealed: string, at: string, previousValidUntil: string): Promise<RenderUrlSecretRow> {
      const updated = await db
        .updateTable('render_url_secrets')
        .set((eb) => ({
          previous_sealed: eb.ref('secret_sealed'),
          previous_valid_until: previousValidUntil,
          secret_sealed: sealed,
          created_at: at,
        }))
        .where('team_id', '=', teamId)
        .executeTakeFirst();
      if (Number(updated.numUpdatedRows) === 0) {
        await db
          .insertInto('render_url_secrets')
          .values({ team_id: teamId, secret_sealed: sealed, created_at: at })
          .onConflict((oc) => oc.column('team_id').doNothing())
          .execute();
      }
      const row = await find(teamId);
      if (!row) throw new Error(`render URL secret of team ${teamId} vanished after its rotation`);
      return row;
    },
  };
}

export type RenderUrlRepository = ReturnType<typeof createRenderUrlRepository>;
