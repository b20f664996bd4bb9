// Fair claiming (issue 14): a job may belong to a group (the team whose export it renders). `fair_key` orders the
// claim so that groups take turns: a group's next job gets the key after the larger of its own last queued key and
// the queue's head, so one group's backlog of thousands never stands in front of another group's first job.
// Jobs without a group keep key 0 and are claimed first (short bookkeeping: finishing exports, webhooks).
import { type Kysely, sql } from 'kysely';

export function fairJobs() {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('jobs').addColumn('fair_group', 'text').execute();
      await db.schema
        .alterTable('jobs')
        .addColumn('fair_key', 'integer', (c) => c.notNull().defaultTo(sql`0`))
        .execute();
      // The claim (due rows of a kind in fair order) and the head of the queue at enqueue.
      await db.schema.createIndex('jobs_fair').on('jobs').columns(['kind', 'status', 'fair_key']).execute();
      // A group's last queued key at enqueue.
      await db.schema
        .createIndex('jobs_fair_group')
        .on('jobs')
        .columns(['kind', 'status', 'fair_group', 'fair_key'])
        .execute();
    },
  };
}
