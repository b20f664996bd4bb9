// Schemas of exports (seed "Exports", SPEC §6): the two requests that start one, its settings, and the export with
// its creatives as the status endpoint answers it. They live below http/ (composed from the format registry) so that
// the export service and the processor take them from here; http/schemas/exports.ts wraps them in the envelope.
import { type Static, Type } from 'typebox';
import { DesignHash, ElementsChanges, GeneralChanges, SizeHash } from '../domain/changes.schema.js';
import { Id, Nullable } from '../domain/schema-primitives.js';
import type { OutputFormat } from './output-format.js';
import { Finding } from './preflight/finding.js';
import { type AnyFormatSettings, EXPORT_TYPES, FORMAT_SETTINGS_PROPERTIES, sharedDefaults } from './registry.js';

/** `png` → `[Pp][Nn][Gg]`: JSON Schema patterns have no case-insensitive flag. */
const anyCase = (word: string) => [...word].map((c) => (/[a-z]/.test(c) ? `[${c.toUpperCase()}${c}]` : c)).join('');

/** Every type and alias the format registry knows (SPEC §6: jpeg = jpg, html5 = html). */
export const ExportType = Type.String({
  pattern: `^(${EXPORT_TYPES.map(anyCase).join('|')})$`,
  'x-rule': `must be one of ${EXPORT_TYPES.join(', ')} (any letter case)`,
  description: `Export type, case-insensitive: ${EXPORT_TYPES.join(', ')} (jpeg = jpg, html5 = html)`,
});

export const ExportStatus = Type.Enum(['pending', 'complete', 'completeWithError', 'failed'], {
  description:
    'pending (from creation until the export ends, as the seed says) → complete | completeWithError (some creatives ' +
    'failed) | failed. A creative has the same values. Poll while pending; `stage` tells how far it is.',
});

/** Extension beside `status`: how far a pending export or file is. */
export const ExportStage = Type.Enum(['queued', 'rendering', 'storing', 'done'], {
  description:
    'Extension: queued (waiting for a render thread) → rendering → storing (files done, the zip and links being ' +
    'made) → done (status is final). `status` stays pending until done.',
});

/** The settings of every format (formats/registry.ts composes them from each format's own schema). */
export const ExportSettings = Type.Object(
  {
    ...FORMAT_SETTINGS_PROPERTIES,
    allowedSizeHashesOnly: Type.Optional(
      Type.Array(SizeHash, {
        minItems: 1,
        maxItems: 100,
        description: 'Design sets: only these sizes are generated (an unknown hash is a 422 UNKNOWN_SIZE_HASH)',
      }),
    ),
  },
  {
    additionalProperties: false,
    description:
      'Settings of the export; a setting that does not apply to the type is ignored, one out of its domain is a 400',
  },
);

const WebhookUrl = Type.String({
  format: 'uri',
  maxLength: 2048,
  description: 'Called once when the export reaches a terminal status, whether it succeeded or failed',
});

export const GeneralSettings = Type.Object(
  {
    newDesignProjectId: Type.Optional(
      Type.With(Id, { description: "Project that receives the new design; default: the template's" }),
    ),
    newDesignFolderId: Type.Optional(
      Type.With(Id, { description: 'Folder for the new design; default: the root of the project' }),
    ),
    newDesignName: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description:
          'Name of the new design, also used in the downloaded file names; default: the template\'s + " (API)"',
      }),
    ),
  },
  { additionalProperties: false },
);

export const ExportWithChangesBody = Type.Object(
  {
    templateHash: DesignHash,
    type: ExportType,
    exportSettings: Type.Optional(ExportSettings),
    webhookUrl: Type.Optional(WebhookUrl),
    elementsChanges: ElementsChanges,
    generalChanges: Type.Optional(GeneralChanges),
    generalSettings: Type.Optional(GeneralSettings),
  },
  { additionalProperties: false },
);

export const ExportBody = Type.Object(
  {
    creativeHash: DesignHash,
    type: ExportType,
    exportSettings: Type.Optional(ExportSettings),
    webhookUrl: Type.Optional(WebhookUrl),
  },
  { additionalProperties: false },
);

export const ExportIdParams = Type.Object({ exportId: Type.String({ format: 'uuid' }) });

const DownloadUrl = (what: string) =>
  Nullable(Type.String({ description: `${what}; null until it is ready. Signed, valid for 1 hour` }));

const Progress = Type.Number({
  minimum: 0,
  maximum: 1,
  description: 'Extension: how far the file is made, 0..1 (moves while an MP4 or GIF renders; 1 once settled)',
});

/** HTML5 extensions of a file (issue 7): present only when there is something to say. */
const Html5Extras = {
  warnings: Type.Optional(
    Type.Array(Type.String(), {
      description:
        "Extension: advice about the file — the HTML5 package validator's ('weight: zip is 170 KB, Google Ads allows 150 KB') and each preflight finding's sentence ('TEXT_OVERFLOW: …')",
    }),
  ),
  findings: Type.Optional(
    Type.Array(Finding, {
      description:
        'Extension: what preflight found for this file (docs/preflight.md); absent when nothing, or exportSettings.preflight is off',
    }),
  ),
  fallbackUrl: Type.Optional(
    Type.String({
      format: 'uri',
      description: 'Extension (HTML5): the backup JPG for networks that want it beside the zip (IAB, CM360, TTD)',
    }),
  ),
};

/** A file of a single-size design. */
export const Creative = Type.Object({
  id: Type.String({ format: 'uuid' }),
  status: ExportStatus,
  stage: ExportStage,
  url: DownloadUrl('Download link'),
  progress: Progress,
  ...Html5Extras,
});

export const SetCreative = Type.Object({
  status: ExportStatus,
  stage: ExportStage,
  url: DownloadUrl('Download link'),
  id: Type.String({ format: 'uuid' }),
  size: Type.Object({
    name: Type.String(),
    width: Type.Number(),
    height: Type.Number(),
    measureUnit: Type.String(),
  }),
  slideNumber: Nullable(Type.Integer({ minimum: 0, description: 'Slide of a per-slide file, counting from 0' })),
  progress: Progress,
  ...Html5Extras,
});

/** The one entry of a design set: every file of the set, and one zip of them all. */
export const SetEntry = Type.Object({
  zipUrl: DownloadUrl('Link to one zip of every file of the set, named after newDesignName or the design'),
  creatives: Type.Array(SetCreative),
});

export const ExportErrorLog = Nullable(
  Type.Object(
    {
      code: Type.String({ description: 'Error code of the export, from the catalogue' }),
      message: Type.String(),
      failures: Type.Array(
        Type.Object({
          creativeId: Type.String({ format: 'uuid' }),
          sizeHash: Type.String(),
          slideNumber: Nullable(Type.Integer({ minimum: 0 })),
          code: Type.String({ description: 'e.g. SOURCE_REJECTED, RENDER_TIMEOUT, RENDER_CRASHED' }),
          message: Type.String(),
        }),
      ),
    },
    { description: 'null while nothing failed' },
  ),
);

export const Export = Type.Object({
  id: Type.String({ format: 'uuid', description: 'Export id, used to check the status' }),
  type: Type.String({ description: 'The export type that was requested' }),
  status: ExportStatus,
  stage: ExportStage,
  errorLog: ExportErrorLog,
  creatives: Type.Array(Type.Union([Creative, SetEntry]), {
    description:
      'One entry per file of a single-size design; one set entry for a design set. Never empty: while pending, ' +
      'one entry per expected file with url null',
  }),
  progress: Type.Number({ minimum: 0, maximum: 1, description: 'Extension: the mean progress of the files, 0..1' }),
  templateHash: Type.String({ description: 'Extension: the design exported (templateHash or creativeHash)' }),
  newDesignHash: Nullable(
    Type.String({ description: 'Extension: the design an export with changes created; null for POST /v1/export' }),
  ),
  createdAt: Type.String({ format: 'date-time', description: 'Extension' }),
  completedAt: Nullable(
    Type.String({ format: 'date-time', description: 'Extension: when it reached its final status' }),
  ),
});

export type ExportSettings = AnyFormatSettings & { allowedSizeHashesOnly?: string[] };
export type ExportWithChangesBody = Static<typeof ExportWithChangesBody>;
export type ExportBody = Static<typeof ExportBody>;
export type Export = Static<typeof Export>;

/** The settings that apply to a format, with their defaults: part of the cache key and what the renderer reads. */
export type RenderSettings = Record<string, unknown> & { allowedSizeHashesOnly: string[] | null };

/** SPEC §6: a setting that does not apply to the type is ignored (dropped here), the others get their defaults. */
export function settingsFor(format: OutputFormat<string, never, unknown>, given: ExportSettings = {}): RenderSettings {
  const sizes = given.allowedSizeHashesOnly ? [...new Set(given.allowedSizeHashesOnly)].sort() : null;
  return {
    ...(format.defaults(given as never) as Record<string, unknown>),
    ...sharedDefaults(given),
    allowedSizeHashesOnly: sizes,
  };
}
