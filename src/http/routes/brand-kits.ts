import type { BrandKitService } from '../../services/brand-kit.service.js';
import { actorOf } from '../plugins/auth.js';
import {
  BrandKitResponse,
  CreateBrandKitBody,
  DeleteBrandKitBody,
  ListBrandKitsQuery,
  ListBrandKitsResponse,
  UpdateBrandKitBody,
} from '../schemas/brand-kits.js';
import { AUTHED_ERRORS, BODY_ERRORS, errors, POST_ERRORS, StatusSuccess } from '../schemas/common.js';
import type { App } from '../types.js';

const tags = ['Brand kits'];

// PUT and DELETE name an existing brand kit: the route only asks for `read` and the service checks `content:write`
// after finding the kit, so that another team's kit is a 404 for every role (see services/access.ts).
const WRITE_AFTER_LOOKUP =
  'Needs the Editor role or a stronger one; a brand kit of another team is a 404 for every role.';

export function brandKitsRoutes(app: App, { brandKits }: { brandKits: BrandKitService }) {
  app.get('/v1/brandkits', {
    config: { permission: 'read' },
    schema: {
      tags,
      summary: 'List the brand kits of the team',
      querystring: ListBrandKitsQuery,
      response: { 200: ListBrandKitsResponse, ...errors(...AUTHED_ERRORS, 'INVALID_CURSOR') },
    },
    handler: async (request) => ({ response: await brandKits.list(actorOf(request), request.query) }),
  });

  app.post('/v1/brandkits/create', {
    config: { permission: 'content:write' },
    schema: {
      tags,
      summary: 'Create a brand kit',
      body: CreateBrandKitBody,
      response: {
        200: BrandKitResponse,
        ...errors(...AUTHED_ERRORS, 'FORBIDDEN', ...POST_ERRORS),
      },
    },
    handler: async (request) => ({ response: await brandKits.create(actorOf(request), request.body) }),
  });

  app.put('/v1/brandkits', {
    config: { permission: 'read' },
    schema: {
      tags,
      summary: 'Rename a brand kit',
      description: `\`typography\` (extension) replaces the kit's typography entries; a \`fontId\` must be a brand font of the team (422 otherwise). \`colors\` (extension) replaces the kit's palette: each \`{name, hex}\` with \`hex\` as #rrggbb (400 otherwise) and names unique in the kit (422 otherwise). ${WRITE_AFTER_LOOKUP}`,
      body: UpdateBrandKitBody,
      response: {
        200: BrandKitResponse,
        ...errors(...AUTHED_ERRORS, ...BODY_ERRORS, 'FORBIDDEN', 'NOT_FOUND', 'UNPROCESSABLE'),
      },
    },
    handler: async (request) => ({ response: await brandKits.rename(actorOf(request), request.body) }),
  });

  app.delete('/v1/brandkits', {
    config: { permission: 'read' },
    schema: {
      tags,
      summary: 'Delete a brand kit',
      description: `A brand kit that a project still uses cannot be deleted (409 BRANDKIT_IN_USE). ${WRITE_AFTER_LOOKUP}`,
      body: DeleteBrandKitBody,
      response: {
        200: StatusSuccess,
        ...errors(...AUTHED_ERRORS, ...BODY_ERRORS, 'FORBIDDEN', 'NOT_FOUND', 'BRANDKIT_IN_USE'),
      },
    },
    handler: async (request) => {
      await brandKits.delete(actorOf(request), request.body.brandkitId);
      return { response: { status: 'success' as const } };
    },
  });
}
