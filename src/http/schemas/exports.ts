// The export routes' schemas: the bodies and the export itself come from formats/export.schema.ts (composed from the
// format registry, below http/); here they get the answer envelope.
import { Type } from 'typebox';
import { Export } from '../../formats/export.schema.js';
import { Ok } from './common.js';

export * from '../../formats/export.schema.js';

/** Where an accepted export stood (issue 14): an extension of the answer, absent for a cache hit. */
export const QueueEstimate = Type.Object(
  {
    position: Type.Integer({
      minimum: 0,
      description:
        "Files of every team expected to render before this export's first file. Renders take turns between teams, " +
        "so this counts the team's own files in flight and, of each other team, at most as many.",
    }),
    expectedWaitMs: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
      description:
        "Milliseconds until this export's last file is expected to be rendered, from the files ahead of it and the " +
        'render rate of the last minute; null while too few files finished in that minute to tell.',
    }),
  },
  { additionalProperties: false },
);

export const CreateExportResponse = Ok(
  Type.Object({
    export: Export,
    queue: Type.Optional({
      ...QueueEstimate,
      description: 'Where the export stood when accepted; absent for a cache hit.',
    }),
  }),
);
export const GetExportResponse = Ok(Export);
