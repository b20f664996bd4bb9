// Team webhooks with the actions they subscribe to, and the team's signing secret. Every query is scoped by team:
// another team's webhook does not exist for the caller.
import type { Kysely } from 'kysely';
import { now } from '../database.js';
import { invalidate } from '../invalidation.js';
import type { Database } from '../schema.js';

export interface WebhookRow {
  id: number;
  team_id: number;
  name: string;
  url: string;
  created_by: number;
  created_by_name: string;
  created_at: string;
}

export interface WebhookActionRow {
  webhook_id: number;
  action_id: number;
  created_by: number;
  created_by_name: string;
  created_at: string;
}

export interface SigningSecretRow {
  secret: string;
  created_at: string;
}

/** Runs `fn` in the caller's transaction, or in a new one (Kysely cannot nest them). */
/**
 * Pending deliveries of a webhook that is deleted or pointed elsewhere end as `cancelled` (issue 14): their jobs find
 * them settled and POST nothing more, and the deliveries list shows why they stopped.
 */
async function cancelPending(tx: Kysely<Database>, webhookId: number, at: string): Promise<void> {
  await tx
    .updateTable('webhook_deliveries')
    .set({ status: 'cancelled', next_attempt_at: null, updated_at: at })
    .where('webhook_id', '=', webhookId)
    .where('status', '=', 'pending')
    .execute();
}

// A write: afterwards the cached subscribers and secrets are dropped (storage/db/invalidation.ts; inside a caller's
// transaction, PostgreSQL's notification at its commit drops them again).
async function inTransaction<T>(db: Kysely<Database>, fn: (tx: Kysely<Database>) => Promise<T>): Promise<T> {
  const result = await (db.isTransaction ? fn(db) : db.transaction().execute(fn));
  invalidate('webhooks');
  return result;
}

export function createWebhookRepository(db: Kysely<Database>) {
  const webhooks = (tx: Kysely<Database>) =>
    tx
      .selectFrom('webhooks as w')
      .innerJoin('users as u', 'u.id', 'w.created_by')
      .select(['w.id', 'w.team_id', 'w.name', 'w.url', 'w.created_by', 'u.name as created_by_name', 'w.created_at']);

  /** Links the actions the webhook lacks, removes those not in `actionIds`, keeps the rest as they were. */
  async function setActions(tx: Kysely<Database>, webhookId: number, actionIds: number[], by: number, at: string) {
    let stale = tx.deleteFrom('webhook_actions').where('webhook_id', '=', webhookId);
    if (actionIds.length > 0) stale = stale.where('action_id', 'not in', actionIds);
    await stale.execute();
    if (actionIds.length === 0) return;
    await tx
      .insertInto('webhook_actions')
      .values(actionIds.map((id) => ({ webhook_id: webhookId, action_id: id, created_by: by, created_at: at })))
      // Kept links keep who added them and when (seed: the link's createdAt is when the action was added).
      .onConflict((oc) => oc.columns(['webhook_id', 'action_id']).doNothing())
      .execute();
  }

  async function findSecret(teamId: number): Promise<SigningSecretRow | undefined> {
    return db
      .selectFrom('team_signing_secrets')
      .select(['secret', 'created_at'])
      .where('team_id', '=', teamId)
      .executeTakeFirst();
  }

  return {
    /** Newest first, as every list of the service (SPEC §4 default order). */
    async list(teamId: number): Promise<WebhookRow[]> {
      return webhooks(db)
        .where('w.team_id', '=', teamId)
        .orderBy('w.created_at', 'desc')
        .orderBy('w.id', 'desc')
        .execute();
    },

    async findById(teamId: number, id: number): Promise<WebhookRow | undefined> {
      return webhooks(db).where('w.team_id', '=', teamId).where('w.id', '=', id).executeTakeFirst();
    },

    /** The action links of these webhooks, by action id. */
    async actionsOf(webhookIds: number[]): Promise<WebhookActionRow[]> {
      if (webhookIds.length === 0) return [];
      return db
        .selectFrom('webhook_actions as a')
        .innerJoin('users as u', 'u.id', 'a.created_by')
        .select(['a.webhook_id', 'a.action_id', 'a.created_by', 'u.name as created_by_name', 'a.created_at'])
        .where('a.webhook_id', 'in', webhookIds)
        .orderBy('a.webhook_id')
        .orderBy('a.action_id')
        .execute();
    },

    async insert(input: { teamId: number; name: string; url: string; createdBy: number; actionIds: number[] }) {
      return inTransaction(db, async (tx) => {
        const at = now();
        const { id } = await tx
          .insertInto('webhooks')
          .values({
            team_id: input.teamId,
            name: input.name,
            url: input.url,
            created_by: input.createdBy,
            created_at: at,
            updated_at: at,
          })
          .returning('id')
          .executeTakeFirstOrThrow();
        await setActions(tx, id, input.actionIds, input.createdBy, at);
        return id;
      });
    },

    /** Changes what is given; false when the team has no such webhook. */
    async update(
      teamId: number,
      id: number,
      changes: { name?: string; url?: string; actionIds?: number[]; by: number },
    ): Promise<boolean> {
      return inTransaction(db, async (tx) => {
        const at = now();
        const { numUpdatedRows } = await tx
          .updateTable('webhooks')
          .set({ name: changes.name, url: changes.url, updated_at: at })
          .where('team_id', '=', teamId)
          .where('id', '=', id)
          .executeTakeFirst();
        if (Number(numUpdatedRows) === 0) return false;
        if (changes.actionIds) await setActions(tx, id, changes.actionIds, changes.by, at);
        // Pending deliveries were addressed to the old URL: the receiver there no longer wants them.
        if (changes.url !== undefined) await cancelPending(tx, id, at);
        return true;
      });
    },

    /** Deletes the webhook and its action links; false when the team has no such webhook. */
    async delete(teamId: number, id: number): Promise<boolean> {
      return inTransaction(db, async (tx) => {
        const owned = await tx
          .selectFrom('webhooks')
          .select('id')
          .where('team_id', '=', teamId)
          .where('id', '=', id)
          .executeTakeFirst();
        if (!owned) return false;
        // Before the delete, while the deliveries still name their webhook (the delete sets webhook_id null).
        await cancelPending(tx, id, now());
        const { numDeletedRows } = await tx.deleteFrom('webhooks').where('id', '=', id).executeTakeFirst();
        return Number(numDeletedRows) > 0;
      });
    },

    findSecret,

    /** Stores `secret` unless the team has one already, and returns the team's secret either way (first one wins). */
    async ensureSecret(teamId: number, secret: string): Promise<SigningSecretRow> {
      await db
        .insertInto('team_signing_secrets')
        .values({ team_id: teamId, secret, created_at: now() })
        .onConflict((oc) => oc.column('team_id').doNothing())
        .execute();
      const row = await findSecret(teamId);
      if (!row) throw new Error(`signing secret of team ${teamId} vanished after its insert`);
      return row;
    },

    async replaceSecret(teamId: number, secret: string): Promise<SigningSecretRow> {
      const at = now();
      await db
        .insertInto('team_signing_secrets')
        .values({ team_id: teamId, secret, created_at: at })
        .onConflict((oc) => oc.column('team_id').doUpdateSet({ secret, created_at: at }))
        .execute();
      invalidate('webhooks');
      return { secret, created_at: at };
    },
  };
}

export type WebhookRepository = ReturnType<typeof createWebhookRepository>;
