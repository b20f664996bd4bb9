// Render URLs (issue 23): the per-team secret that signs `/r/{templateHash}.{ext}` links. One row per team: the current
// secret and, for the overlap after a rotation, the previous one with the moment it stops being accepted. Both are
// sealed (AES-256-GCM under a key derived from the server secret, storage/secrets.ts): verifying an HMAC needs the key
// itself, so a slow hash (as for client secrets) cannot be used, but a copy of the database alone signs nothing.
import type { Kysely } from 'kysely';

export function renderUrls() {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('render_url_secrets')
        .addColumn('team_id', 'integer', (c) => c.primaryKey())
        .addColumn('secret_sealed', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('previous_sealed', 'text')
        .addColumn('previous_valid_until', 'text')
        .execute();
    },
  };
}
