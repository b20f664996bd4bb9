import { ListAdNetworksResponse, ListTeamAdNetworksResponse } from '../schemas/ad-networks.js';
import { AUTHED_ERRORS, errors } from '../schemas/common.js';
import type { App } from '../types.js';
import { notImplemented } from './not-implemented.js';

const tags = ['Ad networks'];

export function adNetworksRoutes(app: App) {
  app.get('/v1/adnetworks', {
    config: { permission: 'read' },
    schema: {
      tags,
      summary: 'List the ad networks (deprecated)',
      description:
        'Deprecated: use /v1/adnetworks/forAdserving or /v1/adnetworks/forHtml. Answers with the headers ' +
        '`Deprecation: true` and `Link: </v1/adnetworks/forHtml>; rel="successor-version"`.',
      deprecated: true,
      response: { 200: ListAdNetworksResponse, ...errors(...AUTHED_ERRORS, 'NOT_IMPLEMENTED') },
    },
    handler: async () => notImplemented('GET /v1/adnetworks'),
  });

  app.get('/v1/adnetworks/forAdserving', {
    config: { permission: 'read' },
    schema: {
      tags,
      summary: 'List the ad networks that serve ad tags, with their status in the team',
      response: { 200: ListTeamAdNetworksResponse, ...errors(...AUTHED_ERRORS, 'NOT_IMPLEMENTED') },
    },
    handler: async () => notImplemented('GET /v1/adnetworks/forAdserving'),
  });

  app.get('/v1/adnetworks/forHtml', {
    config: { permission: 'read' },
    schema: {
      tags,
      summary: 'List the ad networks that take HTML5 packages, with their status in the team',
      description: 'An HTML export follows the rules of the network chosen by `exportSettings.networkId`.',
      response: { 200: ListTeamAdNetworksResponse, ...errors(...AUTHED_ERRORS, 'NOT_IMPLEMENTED') },
    },
    handler: async () => notImplemented('GET /v1/adnetworks/forHtml'),
  });
}
