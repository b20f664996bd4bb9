// Schemas of preflight (issue 20): the body of an export with changes, without what only an export needs (webhook,
// new design), and the findings.
import { type Static, Type } from 'typebox';
import { Finding, PreflightSummary } from '../../formats/preflight/finding.js';
import { Ok } from './common.js';
import { ExportSettings, ExportType } from './exports.js';
import { ElementsChanges, GeneralChanges, SizeHash } from './templates.js';

export const PreflightBody = Type.Object(
  {
    elementsChanges: Type.Optional(ElementsChanges),
    generalChanges: Type.Optional(GeneralChanges),
    type: Type.Optional(
      Type.With(ExportType, {
        description:
          'The export type to check for: raster types apply exportSettings.scale; html adds the package weight (HTML5_WEIGHT). Default: none (scale 1)',
      }),
    ),
    exportSettings: Type.Optional(ExportSettings),
    allowedSizeHashesOnly: Type.Optional(
      Type.Array(SizeHash, {
        minItems: 1,
        maxItems: 100,
        description: 'Only these sizes are checked (as exportSettings.allowedSizeHashesOnly); default every size',
      }),
    ),
  },
  {
    additionalProperties: false,
    description: 'The body of POST /v1/export-with-changes, without webhookUrl and generalSettings',
  },
);
export type PreflightBody = Static<typeof PreflightBody>;

export const PreflightResponse = Ok(
  Type.Object(
    {
      findings: Type.Array(Finding, {
        description: 'Errors first, then warnings, then advice; in document order within each',
      }),
      summary: PreflightSummary,
    },
    { additionalProperties: false },
  ),
);
