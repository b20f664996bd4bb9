// Ad networks (seed "Ad networks", SPEC §10, §11): the catalogue shipped with the service, filtered per endpoint,
// with the status each network has in the caller's team.

import type { Actor } from '../domain/actor.js';
import { AD_NETWORKS, type AdNetworkDef } from '../formats/html5/networks.js';
import type { AdNetworkRepository } from '../storage/db/repositories/ad-networks.repository.js';

export interface AdNetworkServiceDeps {
  statuses: Pick<AdNetworkRepository, 'statusesOf'>;
}

/** The fields the API shows; the packaging rules stay inside the service. */
function node(n: AdNetworkDef) {
  return { id: n.id, name: n.name, type: n.type, adTag: n.adTag, html5: n.html5, status: n.status };
}

export function createAdNetworkService({ statuses }: AdNetworkServiceDeps) {
  async function withTeamStatus(actor: Actor, networks: AdNetworkDef[]) {
    const set = await statuses.statusesOf(actor.teamId);
    return networks.map((n) => ({
      ...node(n),
      adNetworkTeams: { teamId: actor.teamId, adNetworkId: n.id, status: set.get(n.id) ?? true },
    }));
  }

  return {
    /** GET /v1/adnetworks (deprecated): every network, without team status. */
    list() {
      return AD_NETWORKS.map(node);
    },

    forAdserving(actor: Actor) {
      return withTeamStatus(
        actor,
        AD_NETWORKS.filter((n) => n.adTag),
      );
    },

    forHtml(actor: Actor) {
      return withTeamStatus(
        actor,
        AD_NETWORKS.filter((n) => n.html5),
      );
    },
  };
}

export type AdNetworkService = ReturnType<typeof createAdNetworkService>;
