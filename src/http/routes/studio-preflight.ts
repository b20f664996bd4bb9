// POST /v1/studio/preflight: preflight of one size of a document being edited (not yet saved), for the studio
// editor's marks (issue 20). The same checks as POST /v1/templates/{hash}/preflight, on the render threads; the
// editor cannot use that route while the user edits, because it checks the saved template.
import { Type } from 'typebox';
import { DesignDocument } from '../../domain/design.schema.js';
import type { PreflightService } from '../../services/preflight.service.js';
import { actorOf } from '../plugins/auth.js';
import { AUTHED_ERRORS, BODY_ERRORS, errors } from '../schemas/common.js';
import { PreflightResponse } from '../schemas/preflight.js';
import type { App } from '../types.js';

const StudioPreflightBody = Type.Object(
  {
    document: DesignDocument,
    sizeIndex: Type.Integer({ minimum: 0, maximum: 999, description: 'Which size of the document to check' }),
  },
  { additionalProperties: false },
);

export function studioPreflightRoutes(app: App, { preflight }: { preflight: PreflightService }) {
  app.post('/v1/studio/preflight', {
    // It fetches the document's media, like a template's preflight: the export routes' rate.
    config: { permission: 'read', rateGroup: 'exports' },
    schema: {
      tags: ['Studio'],
      summary: 'Check one size of a document being edited: the findings of preflight (the design editor marks)',
      description:
        'Extension (docs/preflight.md). The checks of POST /v1/templates/{templateHash}/preflight on a document ' +
        'that is not saved yet, one size at a time; a size without a hash is named `size-<index>`. Nothing is stored.',
      body: StudioPreflightBody,
      response: {
        200: PreflightResponse,
        ...errors(...AUTHED_ERRORS, ...BODY_ERRORS),
      },
    },
    handler: async (request) => ({
      response: await preflight.draft(actorOf(request), request.body.document, request.body.sizeIndex),
    }),
  });
}
