// Schemas of ad networks (seed "Ad networks", SPEC §10 and §11): a catalogue shipped with the service, each network
// with a per-team status.
import { Type } from 'typebox';
import { Ok } from './common.js';

export const AdNetwork = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  type: Type.String(),
  adTag: Type.Boolean({ description: 'Serves ad tags' }),
  html5: Type.Boolean({ description: 'Takes HTML5 packages' }),
  status: Type.Boolean(),
});

export const TeamAdNetwork = Type.Object({
  ...AdNetwork.properties,
  adNetworkTeams: Type.Object({
    teamId: Type.Integer(),
    adNetworkId: Type.Integer(),
    status: Type.Boolean({ description: 'Whether the network is enabled for the team' }),
  }),
});

export const ListAdNetworksResponse = Ok(Type.Array(AdNetwork));
export const ListTeamAdNetworksResponse = Ok(Type.Array(TeamAdNetwork));
