import type { AdNetworkService } from '../../services/ad-network.service.js';
import { actorOf } from '../plugins/auth.js';
import { ListAdNetworksResponse, ListTeamAdNetworksResponse } from '../schemas/ad-networks.js';
import { AUTHED_ERRORS, errors } from '../schemas/common.js';
import type { App } from '../types.js';

const tags = ['Ad networks'];

/** SPEC §10: the deprecated route says so on every answer, errors included, and names its successor. */
const DEPRECATION_HEADERS = {
  Deprecation: 'true',
  Link: '</v1/adnetworks/forHtml>; rel="successor-version"',
};

export function adNetworksRoutes(app: App, { adNetworks }: { adNetworks: AdNetworkService }) {
  app.get('/v1/adnetworks', {
    config: { permission: 'read' },
    schema: {
      tags,
      summary: 'List the ad networks (deprecated)',
      description:
        'Deprecated: use /v1/adnetworks/forAdserving or /v1/adnetworks/forHtml. Answers with the headers ' +
        '`Deprecation: true` and `Link: </v1/adnetworks/forHtml>; rel="successor-version"`.',
      deprecated: true,
      response: { 200: ListAdNetworksResponse, ...errors(...AUTHED_ERRORS) },
    },
    onSend: async (_request, reply, payload) => {
      reply.headers(DEPRECATION_HEADERS);
      return payload;
    },
    handler: async () => ({ response: adNetworks.list() }),
  });

  app.get('/v1/adnetworks/forAdserving', {
    config: { permission: 'read' },
    schema: {
      tags,
      summary: 'List the ad networks that serve ad tags, with their status in the team',
      response: { 200: ListTeamAdNetworksResponse, ...errors(...AUTHED_ERRORS) },
    },
    handler: async (request) => ({ response: await adNetworks.forAdserving(actorOf(request)) }),
  });

  app.get('/v1/adnetworks/forHtml', {
    config: { permission: 'read' },
    schema: {
      tags,
      summary: 'List the ad networks that take HTML5 packages, with their status in the team',
      description: 'An HTML export follows the rules of the network chosen by `exportSettings.networkId`.',
      response: { 200: ListTeamAdNetworksResponse, ...errors(...AUTHED_ERRORS) },
    },
    handler: async (request) => ({ response: await adNetworks.forHtml(actorOf(request)) }),
  });
}
