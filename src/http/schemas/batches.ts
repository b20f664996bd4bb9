// Batches (issue 22, an extension beside the seed's exports): one template, a mapping from row columns to element
// changes, and the rows as JSON, CSV/TSV text, an uploaded file (multipart/form-data) or a feed URL.
import { type Static, Type } from 'typebox';
import { DesignHash } from '../../domain/changes.schema.js';
import { Finding } from '../../formats/preflight/finding.js';
import { Nullable, Ok, PageOf, PageQueryFields } from './common.js';
import { ExportSettings, ExportType, GeneralSettings } from './exports.js';

export const MappingEntry = Type.Object(
  {
    elementName: Type.String({ minLength: 1, maxLength: 200, description: 'An element of the template, by name' }),
    attribute: Type.String({
      minLength: 1,
      maxLength: 50,
      description: 'The attribute changed, as in elementsChanges (TEXT, SOURCE, COLOR, VISIBILITY …)',
    }),
    value: Type.String({
      maxLength: 5000,
      description:
        'A template over the row: `{title}`, `{title} – {price}`, `{price|currency:EUR:de-DE}`, ' +
        '`{price|number:2:de-DE}`, `{date|date:medium:fr-FR}`, `{name|upper}`, `{name|lower}`; `{{` and `}}` are ' +
        'braces. VISIBILITY takes true/false/yes/no/1/0/on/off.',
    }),
  },
  { additionalProperties: false },
);

const RowValue = Type.Union([Type.String({ maxLength: 100_000 }), Type.Number(), Type.Boolean(), Type.Null()]);

/** The fields of a batch request besides its rows (the multipart form carries the same fields as text). */
const BatchFields = {
  templateHash: DesignHash,
  type: ExportType,
  exportSettings: Type.Optional(ExportSettings),
  generalSettings: Type.Optional(GeneralSettings),
  createDesigns: Type.Optional(
    Type.Boolean({
      description: 'Each row also becomes a design (apiGenerated), as export-with-changes does; default false',
    }),
  ),
  webhookUrl: Type.Optional(
    Type.String({ format: 'uri', maxLength: 2048, description: 'Receives batch/completed once the batch ends' }),
  ),
  notifyRowFailures: Type.Optional(
    Type.Boolean({ description: 'Also send batch/row.failed to webhookUrl for each failed row; default false' }),
  ),
  mapping: Type.Array(MappingEntry, { minItems: 1, maxItems: 500 }),
  rowKey: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200,
      description: "The column that identifies a row; default the row's number counting from 1",
    }),
  ),
  onFindings: Type.Optional(
    Type.Enum(['render', 'skip', 'fail'], {
      description:
        'What a row with a preflight error does: render it anyway (default; findings listed), skip it, or fail it',
    }),
  ),
  naming: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 300,
      description:
        'Path of each file in the zip: {key} {index} {name} {width} {height} {ext} and any column, e.g. ' +
        '`{key}/{name}-{width}x{height}`; default `{key}/<design name>-<W>x<H>.<ext>`',
    }),
  ),
};

export const BatchBody = Type.Object(
  {
    ...BatchFields,
    rows: Type.Optional(
      Type.Array(Type.Record(Type.String({ maxLength: 200 }), RowValue), {
        minItems: 1,
        maxItems: 100_000,
        description: 'The rows as JSON objects (column → string, number, boolean or null)',
      }),
    ),
    csv: Type.Optional(
      Type.String({ minLength: 1, description: 'The rows as CSV or TSV text with a header line (delimiter sniffed)' }),
    ),
    feedUrl: Type.Optional(
      Type.String({
        format: 'uri',
        maxLength: 2048,
        description:
          'A CSV/TSV file or an RSS/Atom feed (Google Merchant g: fields) fetched through the guarded fetcher',
      }),
    ),
  },
  { additionalProperties: false },
);
export type BatchBody = Static<typeof BatchBody>;

export const BatchIdParams = Type.Object({
  id: Type.Integer({ minimum: 1, maximum: 2147483647, description: 'The batch id' }),
});

export const RowCounts = Type.Object({
  pending: Type.Integer(),
  running: Type.Integer(),
  succeeded: Type.Integer(),
  failed: Type.Integer(),
  skipped: Type.Integer(),
  cancelled: Type.Integer(),
});

export const Batch = Type.Object({
  id: Type.Integer(),
  status: Type.Enum(['pending', 'running', 'complete', 'completeWithError', 'failed', 'cancelled']),
  templateHash: Type.String(),
  type: Type.String(),
  rowCount: Type.Integer(),
  counts: RowCounts,
  progress: Type.Number({ description: 'Settled rows / rowCount, 0..1' }),
  zipUrl: Nullable(Type.String({ description: 'Signed link to the zip of every file, once the batch ended' })),
  resultsUrl: Nullable(Type.String({ description: 'Signed link to the results CSV, once the batch ended' })),
  createdAt: Type.String(),
  updatedAt: Type.String(),
  finishedAt: Nullable(Type.String()),
});

export const BatchRowNode = Type.Object({
  index: Type.Integer(),
  key: Type.String(),
  line: Nullable(Type.Integer()),
  status: Type.Enum(['pending', 'running', 'succeeded', 'failed', 'skipped', 'cancelled']),
  cached: Type.Boolean({ description: 'The files were made before for the same variant and reused' }),
  designHash: Nullable(Type.String({ description: 'The design the row created (createDesigns), else null' })),
  findings: Type.Array(Finding),
  files: Type.Array(
    Type.Object({
      sizeHash: Type.String(),
      name: Type.String(),
      width: Type.Integer(),
      height: Type.Integer(),
      bytes: Type.Integer(),
      url: Type.String(),
    }),
  ),
  error: Nullable(Type.Object({ code: Type.String(), message: Type.String() })),
});

export const BatchResponse = Ok(Type.Object({ batch: Batch }));
export const GetBatchResponse = Ok(Batch);
export const ListBatchesQuery = Type.Object({ ...PageQueryFields }, { additionalProperties: false });
export const ListBatchesResponse = PageOf(Batch);
export const ListBatchRowsQuery = Type.Object(
  {
    ...PageQueryFields,
    status: Type.Optional(Type.Enum(['pending', 'running', 'succeeded', 'failed', 'skipped', 'cancelled'])),
  },
  { additionalProperties: false },
);
export const ListBatchRowsResponse = PageOf(BatchRowNode);
export const RetryBatchResponse = Ok(Type.Object({ batch: Batch, retried: Type.Integer() }));

export const PreviewResponse = Ok(
  Type.Object({
    columns: Type.Array(Type.String()),
    rowCount: Type.Integer(),
    rows: Type.Array(
      Type.Object({
        index: Type.Integer(),
        key: Type.String(),
        changes: Type.Array(
          Type.Object({ elementName: Type.String(), attribute: Type.String(), value: Type.String() }),
        ),
        findings: Type.Array(Finding),
        imageUrl: Nullable(Type.String({ description: 'A signed render URL of the row (first size), valid 1 hour' })),
        error: Nullable(Type.Object({ code: Type.String(), message: Type.String() })),
      }),
    ),
  }),
);
