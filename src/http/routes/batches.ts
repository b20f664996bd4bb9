// Batches (issue 22): one template, many rows, one job. POST /v1/batches and its preview take JSON (rows, csv text or
// feedUrl) or multipart/form-data (a `file` part and the other fields as text parts, JSON-valued ones as JSON text):
// the form is turned into the JSON body before validation, so one schema checks both.
import multipart from '@fastify/multipart';
import { BATCH_LIMITS } from '../../domain/batch/rows.js';
import { AppError } from '../../errors.js';
import type { BatchInput, BatchService } from '../../services/batch.service.js';
import { contentDisposition } from '../../storage/blobs/content-disposition.js';
import { actorOf } from '../plugins/auth.js';
import {
  BatchBody,
  BatchIdParams,
  BatchResponse,
  GetBatchResponse,
  ListBatchesQuery,
  ListBatchesResponse,
  ListBatchRowsQuery,
  ListBatchRowsResponse,
  PreviewResponse,
  RetryBatchResponse,
} from '../schemas/batches.js';
import { AUTHED_ERRORS, errors, POST_ERRORS } from '../schemas/common.js';
import type { App } from '../types.js';

const tags = ['Batches'];

/** Form fields whose value is JSON text; the others are text, and booleans are `true`/`false`. */
const JSON_FIELDS = new Set(['mapping', 'exportSettings', 'generalSettings', 'rows']);
const BOOLEAN_FIELDS = new Set(['createDesigns', 'notifyRowFailures']);

const SUBMIT_ERRORS = [
  ...AUTHED_ERRORS,
  'FORBIDDEN',
  'NOT_FOUND',
  ...POST_ERRORS,
  'UNKNOWN_ELEMENT',
  'ATTRIBUTE_NOT_APPLICABLE',
  'UNKNOWN_SIZE_HASH',
  'UNPROCESSABLE',
] as const;

const BODY_DESCRIPTION =
  'The rows come as `rows` (JSON objects), `csv` (CSV or TSV text with a header line; UTF-8 with or without BOM, ' +
  'quoted fields, embedded newlines), `feedUrl` (a CSV/TSV file or an RSS/Atom feed, Google Merchant `g:` fields ' +
  'named without the prefix: `g:price` → `price`), or as multipart/form-data with a `file` part and the other ' +
  `fields as text parts (mapping, exportSettings, generalSettings as JSON text). At most ${BATCH_LIMITS.maxRows} ` +
  `rows and ${BATCH_LIMITS.maxFileBytes / 1024 / 1024} MiB. Errors of the whole input (a mapped column missing, a ` +
  'ragged row, invalid UTF-8, an unknown column or formatter) refuse the request naming the line; a value one row ' +
  'cannot take fails that row only.';

export function batchesRoutes(app: App, { batches }: { batches: BatchService }) {
  app.register(async (scope) => {
    await scope.register(multipart, {
      throwFileSizeLimit: false,
      limits: { fileSize: BATCH_LIMITS.maxFileBytes, files: 1, fields: 20, fieldSize: 1024 * 1024, parts: 21 },
    });
    const s = scope as App;
    // A multipart form becomes the JSON body (its file kept aside) before the schema checks it.
    s.addHook('preValidation', async (request) => {
      if (!request.isMultipart()) return;
      const body: Record<string, unknown> = {};
      for await (const part of request.parts()) {
        if (part.type === 'file') {
          if (part.fieldname !== 'file') {
            await part.toBuffer();
            throw new AppError('VALIDATION_FAILED', `${part.fieldname}: unknown part; the rows go in a \`file\` part`);
          }
          const bytes = await part.toBuffer();
          if (part.file.truncated) {
            throw new AppError(
              'PAYLOAD_TOO_LARGE',
              `file: larger than the limit of ${BATCH_LIMITS.maxFileBytes / 1024 / 1024} MiB per batch file`,
            );
          }
          (request as unknown as { batchFile: BatchInput['file'] }).batchFile = {
            bytes,
            contentType: part.mimetype,
            fileName: part.filename,
          };
          continue;
        }
        const value = String(part.value);
        if (JSON_FIELDS.has(part.fieldname)) {
          try {
            body[part.fieldname] = JSON.parse(value);
          } catch {
            throw new AppError('VALIDATION_FAILED', `${part.fieldname}: must be JSON text in a form`);
          }
        } else if (BOOLEAN_FIELDS.has(part.fieldname)) {
          if (value !== 'true' && value !== 'false') {
            throw new AppError('VALIDATION_FAILED', `${part.fieldname}: must be true or false, received '${value}'`);
          }
          body[part.fieldname] = value === 'true';
        } else {
          body[part.fieldname] = value;
        }
      }
      request.body = body;
    });
    const inputOf = (request: { body: unknown }) => ({
      ...(request.body as BatchInput),
      file: (request as unknown as { batchFile?: BatchInput['file'] }).batchFile,
    });

    s.post('/v1/batches', {
      // One request against the exports' rate limit, however many rows it has.
      config: { permission: 'content:write', rateGroup: 'exports' },
      bodyLimit: BATCH_LIMITS.maxFileBytes + 1024 * 1024,
      schema: {
        tags,
        summary: 'Start a batch: one template, a mapping, many rows',
        description:
          `Extension. Answers once every row is stored; rows render in the background. ${BODY_DESCRIPTION} ` +
          'Rows whose changes were rendered before (the same template revision, type, settings and values) reuse ' +
          'those files. A batch counts as one request against the rate limit.',
        body: BatchBody,
        consumes: ['application/json', 'multipart/form-data'],
        response: { 200: BatchResponse, ...errors(...SUBMIT_ERRORS) },
      },
      handler: async (request) => ({
        response: { batch: await batches.submit(actorOf(request), inputOf(request)) },
      }),
    });

    s.post('/v1/batches/preview', {
      config: { permission: 'content:write' },
      bodyLimit: BATCH_LIMITS.maxFileBytes + 1024 * 1024,
      schema: {
        tags,
        summary: 'Check a batch and preview its first rows, storing nothing',
        description:
          `Extension. The same body and checks as POST /v1/batches. ${BODY_DESCRIPTION} Answers the columns, the ` +
          'row count and the first 10 rows with their changes, preflight findings and a signed render URL (PNG ' +
          'of the first size, valid for the download-link lifetime).',
        body: BatchBody,
        consumes: ['application/json', 'multipart/form-data'],
        response: { 200: PreviewResponse, ...errors(...SUBMIT_ERRORS) },
      },
      handler: async (request) => ({ response: await batches.preview(actorOf(request), inputOf(request)) }),
    });
  });

  app.get('/v1/batches', {
    config: { permission: 'read' },
    schema: {
      tags,
      summary: 'List batches',
      description: 'Extension. The batches of the projects the caller sees, newest first (SPEC §4 paging).',
      querystring: ListBatchesQuery,
      response: { 200: ListBatchesResponse, ...errors(...AUTHED_ERRORS, 'INVALID_CURSOR') },
    },
    handler: async (request) => ({ response: await batches.list(actorOf(request), request.query) }),
  });

  app.get('/v1/batches/:id', {
    config: { permission: 'read' },
    schema: {
      tags,
      summary: 'Status of a batch',
      description:
        'Extension. status: pending → running → complete | completeWithError (some rows failed) | failed (no row ' +
        'succeeded) | cancelled; counts by row status; zipUrl and resultsUrl (signed, fresh on every call) once it ended.',
      params: BatchIdParams,
      response: { 200: GetBatchResponse, ...errors(...AUTHED_ERRORS, 'NOT_FOUND') },
    },
    handler: async (request) => ({ response: await batches.get(actorOf(request), request.params.id) }),
  });

  app.get('/v1/batches/:id/rows', {
    config: { permission: 'read' },
    schema: {
      tags,
      summary: 'Rows of a batch',
      description: 'Extension. In input order (SPEC §4 paging); each with its key, status, findings, files and error.',
      params: BatchIdParams,
      querystring: ListBatchRowsQuery,
      response: { 200: ListBatchRowsResponse, ...errors(...AUTHED_ERRORS, 'NOT_FOUND', 'INVALID_CURSOR') },
    },
    handler: async (request) => ({
      response: await batches.rows(actorOf(request), request.params.id, request.query),
    }),
  });

  app.post('/v1/batches/:id/cancel', {
    config: { permission: 'content:write' },
    schema: {
      tags,
      summary: 'Cancel a batch',
      description:
        'Extension. Rows not started are cancelled; rows already rendering finish and keep their files. The batch ' +
        'then ends as cancelled with a zip of what was made.',
      params: BatchIdParams,
      response: { 200: BatchResponse, ...errors(...AUTHED_ERRORS, 'FORBIDDEN', 'NOT_FOUND', 'UNPROCESSABLE') },
    },
    handler: async (request) => ({
      response: { batch: await batches.cancel(actorOf(request), request.params.id) },
    }),
  });

  app.post('/v1/batches/:id/retry', {
    config: { permission: 'content:write', rateGroup: 'exports' },
    schema: {
      tags,
      summary: 'Render the failed rows of a batch again',
      description:
        'Extension. Only failed rows (not skipped or cancelled ones, nor rows whose values cannot be mapped) run ' +
        'again; the batch runs until they settle and sends batch/completed again.',
      params: BatchIdParams,
      response: { 200: RetryBatchResponse, ...errors(...AUTHED_ERRORS, 'FORBIDDEN', 'NOT_FOUND', 'UNPROCESSABLE') },
    },
    handler: async (request) => ({ response: await batches.retry(actorOf(request), request.params.id) }),
  });

  app.get('/v1/batches/:id/results.csv', {
    config: { permission: 'read' },
    schema: {
      tags,
      summary: 'Results of a batch as CSV',
      description:
        'Extension. One line per row: index, key, status, files (paths in the zip), urls (signed links), errorCode, ' +
        'error, findings. Streamed.',
      params: BatchIdParams,
      response: { ...errors(...AUTHED_ERRORS, 'NOT_FOUND') },
    },
    handler: async (request, reply) => {
      const { body, fileName } = await batches.resultsCsv(actorOf(request), request.params.id);
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', contentDisposition(fileName))
        .send(body);
    },
  });

  app.get('/v1/batches/:id/zip', {
    config: { permission: 'read' },
    schema: {
      tags,
      summary: 'Every file of a batch as one zip',
      description:
        'Extension. `<rowKey>/<design name>-<W>x<H>.<ext>` per file, or the batch’s naming pattern; streamed, ' +
        'with the files of the rows succeeded so far.',
      params: BatchIdParams,
      response: { ...errors(...AUTHED_ERRORS, 'NOT_FOUND') },
    },
    handler: async (request, reply) => {
      const { body, fileName } = await batches.zip(actorOf(request), request.params.id);
      return reply.type('application/zip').header('content-disposition', contentDisposition(fileName)).send(body);
    },
  });
}
