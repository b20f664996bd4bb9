// The per-team status of ad networks. Only deviations from the default are stored: a network without a row is
// enabled for the team (SPEC §11), so a network added to the catalogue is enabled everywhere at once.
import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';

export function createAdNetworkRepository(db: Kysely<Database>) {
  return {
    /** The networks whose status the team has set, by network id. */
    async statusesOf(teamId: number): Promise<Map<number, boolean>> {
      const rows = await db
        .selectFrom('ad_network_team_status')
        .select(['ad_network_id', 'status'])
        .where('team_id', '=', teamId)
        .execute();
      return new Map(rows.map((r) => [r.ad_network_id, r.status === 1]));
    },

    async setStatus(teamId: number, adNetworkId: number, enabled: boolean): Promise<void> {
      const status = enabled ? 1 : 0;
      await db
        .insertInto('ad_network_team_status')
        .values({ team_id: teamId, ad_network_id: adNetworkId, status })
        .onConflict((oc) => oc.columns(['team_id', 'ad_network_id']).doUpdateSet({ status }))
        .execute();
    },
  };
}

export type AdNetworkRepository = ReturnType<typeof createAdNetworkRepository>;
