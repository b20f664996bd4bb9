import { designDocumentJsonSchema } from '../../domain/design.schema.js';
import { AppError } from '../../errors.js';
import { fontFamily as catalogueFamily, fontCatalogue } from '../../render/text/fonts.js';
import type { DesignService } from '../../services/design.service.js';
import type { FontService } from '../../services/font.service.js';
import { actorOf } from '../plugins/auth.js';
import { AUTHED_ERRORS, BODY_ERRORS, errors, POST_ERRORS, StatusSuccess } from '../schemas/common.js';
import {
  DeleteTemplateBody,
  DesignDocumentJsonSchema,
  DesignSizesResponse,
  DocumentResponse,
  ElementsResponse,
  FontsResponse,
  FontVariantsQuery,
  FontVariantsResponse,
  HashParams,
  ImportTemplateBody,
  ListTemplatesQuery,
  ListTemplatesResponse,
  ReplaceDocumentBody,
  ReplaceDocumentResponse,
  TemplateHashParams,
  TemplateResponse,
  UpdateTemplateBody,
} from '../schemas/templates.js';
import type { App } from '../types.js';

const tags = ['Templates (designs)'];

function etagOf(revision: number): string {
  return `"${revision}"`;
}

/** The revision an If-Match header names: absent or `*` means any; anything but one of our ETags is a 400. */
function revisionOfIfMatch(header: string | undefined): number | undefined {
  if (header === undefined || header.trim() === '*') return undefined;
  const match = /^\s*(?:W\/)?"(\d{1,15})"\s*$/.exec(header);
  if (!match) {
    throw new AppError(
      'VALIDATION_FAILED',
      'If-Match must be one ETag of GET /v1/templates/{hash}/document, e.g. "12"',
      {
        details: [{ path: '/if-match', in: 'headers', message: 'must be an ETag of this API ("<revision>")' }],
      },
    );
  }
  return Number(match[1]);
}

// Routes that name an existing design, project or folder ask only for `read` and the service checks content:write after
// the lookup, so that what the caller cannot see is a 404 for every role (services/access.ts).
const WRITE_AFTER_LOOKUP =
  'Needs the Editor role or a stronger one on a project the caller can see (Editors: projects they are users of); ' +
  'a design, project or folder the caller cannot see is a 404 for every role.';

export function templatesRoutes(
  app: App,
  { designs, fonts }: { designs: DesignService; fonts?: Pick<FontService, 'lookup' | 'families'> },
) {
  app.get('/v1/templates', {
    config: { permission: 'read' },
    schema: {
      tags,
      summary: 'List the designs the caller can see',
      description:
        '`keyword` is a case-insensitive substring match (`exactSearch=true`: equal, case-insensitive). ' +
        'API-generated designs are excluded unless `apiGenerated=true`, which lists only them. ' +
        'Default order: UPDATED_AT DESC. `thumbUrl` is valid for 12 hours; list again for a new one.',
      querystring: ListTemplatesQuery,
      response: { 200: ListTemplatesResponse, ...errors(...AUTHED_ERRORS, 'INVALID_CURSOR') },
    },
    handler: async (request) => ({ response: await designs.list(actorOf(request), request.query) }),
  });

  app.delete('/v1/templates', {
    config: { permission: 'read' },
    schema: {
      tags,
      summary: 'Delete a design',
      description: `Finished exports of the design stay downloadable until their links expire. ${WRITE_AFTER_LOOKUP}`,
      body: DeleteTemplateBody,
      response: { 200: StatusSuccess, ...errors(...AUTHED_ERRORS, ...BODY_ERRORS, 'FORBIDDEN', 'NOT_FOUND') },
    },
    handler: async (request) => {
      await designs.delete(actorOf(request), request.body.hash);
      return { response: { status: 'success' as const } };
    },
  });

  app.put('/v1/templates', {
    config: { permission: 'read' },
    schema: {
      tags,
      summary: 'Rename a design or mark it as a team template',
      description: `Extension. A rename renames the design document too (a new revision). ${WRITE_AFTER_LOOKUP}`,
      body: UpdateTemplateBody,
      response: { 200: TemplateResponse, ...errors(...AUTHED_ERRORS, ...BODY_ERRORS, 'FORBIDDEN', 'NOT_FOUND') },
    },
    handler: async (request) => ({ response: await designs.update(actorOf(request), request.body) }),
  });

  app.get('/v1/templates/:templateHash/design-sizes', {
    config: { permission: 'read' },
    schema: {
      tags,
      summary: 'List the sizes of a design or design set',
      params: TemplateHashParams,
      response: { 200: DesignSizesResponse, ...errors(...AUTHED_ERRORS, 'NOT_FOUND') },
    },
    handler: async (request) => ({ response: await designs.sizes(actorOf(request), request.params.templateHash) }),
  });

  app.post('/v1/templates/import', {
    config: { permission: 'read' },
    schema: {
      tags,
      summary: 'Create a design from a design document',
      description:
        'Extension. The document is validated against GET /v1/schemas/design-document.json; size hashes and ' +
        'kinds are filled in when absent, and a size hash another design already uses is replaced by a new one. ' +
        `The design takes \`name\` (the document's name too). A folder of another project is a 422. ${WRITE_AFTER_LOOKUP}`,
      body: ImportTemplateBody,
      response: {
        200: TemplateResponse,
        ...errors(...AUTHED_ERRORS, 'FORBIDDEN', 'NOT_FOUND', ...POST_ERRORS, 'UNPROCESSABLE'),
      },
    },
    handler: async (request) => ({ response: await designs.importDesign(actorOf(request), request.body) }),
  });

  app.get('/v1/templates/:hash/document', {
    config: { permission: 'read' },
    schema: {
      tags,
      summary: 'Read the design document of a design',
      description:
        "Extension. The `ETag` header is the design's revision: send it back as `If-Match` on PUT to save only if " +
        'nobody saved in between.',
      params: HashParams,
      response: { 200: DocumentResponse, ...errors(...AUTHED_ERRORS, 'NOT_FOUND') },
    },
    handler: async (request, reply) => {
      const { document, revision } = await designs.revisionedDocument(actorOf(request), request.params.hash);
      reply.header('ETag', etagOf(revision));
      return { response: document };
    },
  });

  app.put('/v1/templates/:hash/document', {
    config: { permission: 'read' },
    schema: {
      tags,
      summary: 'Replace the design document of a design',
      description:
        'Extension. The previous content is kept as an automatic design version; the new content changes the ' +
        "design's revision, so earlier cached exports no longer match. Sizes without a hash keep the hash of the " +
        "current size of the same name and dimensions; the document's name becomes the design's name. " +
        'With `If-Match` (the `ETag` of GET …/document), the save is refused with 412 STALE_REVISION when the design ' +
        'was saved since; without it, the document is replaced whatever its revision. The answer carries the new ' +
        '`ETag`. ' +
        WRITE_AFTER_LOOKUP,
      params: HashParams,
      body: ReplaceDocumentBody,
      response: {
        200: ReplaceDocumentResponse,
        ...errors(...AUTHED_ERRORS, ...BODY_ERRORS, 'FORBIDDEN', 'NOT_FOUND', 'STALE_REVISION'),
      },
    },
    handler: async (request, reply) => {
      const expected = revisionOfIfMatch(request.headers['if-match']);
      const result = await designs.replaceDocument(
        actorOf(request),
        request.params.hash,
        request.body.document,
        expected,
      );
      reply.header('ETag', etagOf(result.revision));
      return { response: result };
    },
  });

  app.get('/v1/templates/:hash/elements', {
    config: { permission: 'read' },
    schema: {
      tags,
      summary: 'List the editable elements of a design',
      description: 'Extension. `attributes` are the element-change attributes each element accepts.',
      params: HashParams,
      response: { 200: ElementsResponse, ...errors(...AUTHED_ERRORS, 'NOT_FOUND') },
    },
    handler: async (request) => ({ response: await designs.elements(actorOf(request), request.params.hash) }),
  });

  app.get('/v1/templates/fontVariants', {
    config: { permission: 'read' },
    schema: {
      tags,
      summary: 'List the font variants valid as FONTVARIANT values',
      description:
        'Give `templateHash` (the fonts of its text and button elements, or of `elementName` only) or `fontFamily`. ' +
        'With templateHash, each family the design uses appears once, in order of first use; a family outside the ' +
        'catalogue has no variants.',
      querystring: FontVariantsQuery,
      response: {
        200: FontVariantsResponse,
        ...errors(...AUTHED_ERRORS, 'NOT_FOUND', 'UNKNOWN_ELEMENT'),
      },
    },
    handler: async (request) => {
      const { templateHash, elementName, fontFamily } = request.query;
      if (templateHash) {
        const used = await designs.fontVariants(actorOf(request), templateHash, elementName);
        const lookup = await fonts?.lookup(actorOf(request).teamId);
        // The team's brand families answer with their own variants (they win over a bundled family of that name).
        return {
          response: used.map((entry) => {
            const found = lookup?.family(entry.fontFamily);
            return found ? { fontFamily: found.fontFamily, variants: [...found.variants] } : entry;
          }),
        };
      }
      if (elementName) {
        throw new AppError(
          'VALIDATION_FAILED',
          'elementName (query): needs templateHash, the design the element is in',
          {
            details: [{ path: '/elementName', in: 'query', message: 'needs templateHash' }],
          },
        );
      }
      if (!fontFamily) {
        throw new AppError('VALIDATION_FAILED', 'query string: give templateHash or fontFamily', {
          details: [{ path: '/', in: 'query', message: 'give templateHash or fontFamily' }],
        });
      }
      const family = (await fonts?.lookup(actorOf(request).teamId))?.family(fontFamily) ?? catalogueFamily(fontFamily);
      if (!family) {
        throw new AppError(
          'NOT_FOUND',
          `fontFamily (query): the font catalogue has no family ${JSON.stringify(fontFamily)}; GET /v1/fonts lists them`,
        );
      }
      return { response: [{ fontFamily: family.fontFamily, variants: [...family.variants] }] };
    },
  });

  app.get('/v1/fonts', {
    config: { permission: 'read' },
    schema: {
      tags,
      summary: 'List the font catalogue',
      description: 'Extension. The families shipped with the service, plus the fonts of the brand kits of the team.',
      response: { 200: FontsResponse, ...errors(...AUTHED_ERRORS, 'NOT_IMPLEMENTED') },
    },
    // The team's uploaded families join the catalogue (marked `team`); one of a bundled family's name replaces it.
    handler: async (request) => {
      const team = fonts ? await fonts.families(actorOf(request).teamId) : [];
      const names = new Set(team.map((family) => family.fontFamily.toLowerCase()));
      return {
        response: [
          ...fontCatalogue().filter((family) => !names.has(family.fontFamily.toLowerCase())),
          ...team.map((family) => ({
            fontFamily: family.fontFamily,
            variants: family.variants,
            scripts: [],
            team: true as const,
          })),
        ].sort((a, b) => a.fontFamily.localeCompare(b.fontFamily)),
      };
    },
  });

  app.get('/v1/schemas/design-document.json', {
    config: { permission: 'read' },
    schema: {
      tags,
      summary: 'JSON Schema of the design document',
      description: 'Extension. Served as is, not wrapped in `response`, so that JSON Schema tools can use it.',
      response: { 200: DesignDocumentJsonSchema, ...errors(...AUTHED_ERRORS, 'NOT_IMPLEMENTED') },
    },
    handler: async () => designDocumentJsonSchema(),
  });
}
