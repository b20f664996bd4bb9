import type { ExportService } from '../../services/export.service.js';
import { actorOf } from '../plugins/auth.js';
import { AUTHED_ERRORS, errors, POST_ERRORS } from '../schemas/common.js';
import {
  CreateExportResponse,
  ExportBody,
  ExportIdParams,
  ExportWithChangesBody,
  GetExportResponse,
} from '../schemas/exports.js';
import type { App } from '../types.js';

const tags = ['Exports'];

export function exportsRoutes(app: App, { exports }: { exports: ExportService }) {
  app.post('/v1/export-with-changes', {
    config: { permission: 'content:write', rateGroup: 'exports' },
    schema: {
      tags,
      summary: 'Export a template after changing its elements; creates a new design',
      description:
        'Everything that can be checked is checked before the answer (template, element names, attributes, values, ' +
        'size hashes, settings): an invalid request creates no export and no design. The new design (apiGenerated) ' +
        'is created when the request is accepted. An identical earlier request whose export completed answers that ' +
        'export again (header `X-Cache: HIT`) and creates nothing.',
      body: ExportWithChangesBody,
      response: {
        200: CreateExportResponse,
        ...errors(
          ...AUTHED_ERRORS,
          'FORBIDDEN',
          'NOT_FOUND',
          ...POST_ERRORS,
          'UNKNOWN_ELEMENT',
          'ATTRIBUTE_NOT_APPLICABLE',
          'INVALID_ELEMENT_CHANGE',
          'FONT_VARIANT_UNAVAILABLE',
          'UNKNOWN_SIZE_HASH',
          'UNPROCESSABLE',
          'UNAVAILABLE',
        ),
      },
    },
    handler: async (request, reply) => {
      const result = await exports.exportWithChanges(actorOf(request), request.body);
      reply.header('X-Cache', result.cacheHit ? 'HIT' : 'MISS');
      return { response: { export: result.export, ...(result.queue ? { queue: result.queue } : {}) } };
    },
  });

  app.post('/v1/export', {
    config: { permission: 'export:create', rateGroup: 'exports' },
    schema: {
      tags,
      summary: 'Export an existing design',
      description:
        'Creates no design. An identical earlier request whose export completed answers that export again ' +
        "(header `X-Cache: HIT`). Every type the schema admits is rendered (formats/registry.ts). The answer's " +
        '`queue` gives the position and expected wait. 503 with Retry-After when the export queue is full, or when ' +
        "the export's expected wait passes PLACARD_MAX_QUEUE_WAIT_SECONDS.",
      body: ExportBody,
      response: {
        200: CreateExportResponse,
        ...errors(...AUTHED_ERRORS, 'NOT_FOUND', ...POST_ERRORS, 'UNKNOWN_SIZE_HASH', 'UNPROCESSABLE', 'UNAVAILABLE'),
      },
    },
    handler: async (request, reply) => {
      const result = await exports.export(actorOf(request), request.body);
      reply.header('X-Cache', result.cacheHit ? 'HIT' : 'MISS');
      return { response: { export: result.export, ...(result.queue ? { queue: result.queue } : {}) } };
    },
  });

  app.get('/v1/export/:exportId', {
    config: { permission: 'read' },
    schema: {
      tags,
      summary: 'Status of an export',
      description: 'Each call signs fresh download links, valid for 1 hour.',
      params: ExportIdParams,
      response: { 200: GetExportResponse, ...errors(...AUTHED_ERRORS, 'NOT_FOUND') },
    },
    handler: async (request) => ({ response: await exports.get(actorOf(request), request.params.exportId) }),
  });
}
