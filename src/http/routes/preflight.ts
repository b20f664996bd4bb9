import { FINDING_CATALOGUE } from '../../formats/preflight/finding.js';
import type { PreflightService } from '../../services/preflight.service.js';
import { actorOf } from '../plugins/auth.js';
import { AUTHED_ERRORS, errors, POST_ERRORS } from '../schemas/common.js';
import { PreflightBody, PreflightResponse } from '../schemas/preflight.js';
import { TemplateHashParams } from '../schemas/templates.js';
import type { App } from '../types.js';

const codes = Object.entries(FINDING_CATALOGUE)
  .map(([code, { severity }]) => `\`${code}\` (${severity})`)
  .join(', ');

export function preflightRoutes(app: App, { preflight }: { preflight: PreflightService }) {
  app.post('/v1/templates/:templateHash/preflight', {
    // Any role that sees the template: preflight changes nothing. It fetches the SOURCE changes' media, so it counts
    // against the export routes' rate.
    config: { permission: 'read', rateGroup: 'exports' },
    schema: {
      tags: ['Templates (designs)'],
      summary: 'Check a variant before exporting it: overflow, missing glyphs, low resolution, contrast',
      description:
        'Extension (docs/preflight.md). Takes the body of an export with changes and answers what each size of the ' +
        'variant would get wrong, from the same layout, font and media code the renderer uses; renders nothing and ' +
        `creates nothing. Codes: ${codes}. Media of SOURCE changes are fetched through the guarded fetcher with a ` +
        '5 s timeout and cached; one that cannot be used is a finding, not an error of the request.',
      params: TemplateHashParams,
      body: PreflightBody,
      response: {
        200: PreflightResponse,
        ...errors(
          ...AUTHED_ERRORS,
          'NOT_FOUND',
          ...POST_ERRORS,
          'UNKNOWN_ELEMENT',
          'ATTRIBUTE_NOT_APPLICABLE',
          'INVALID_ELEMENT_CHANGE',
          'FONT_VARIANT_UNAVAILABLE',
          'UNKNOWN_SIZE_HASH',
        ),
      },
    },
    handler: async (request) => ({
      response: await preflight.preflight(
        actorOf(request),
        request.params.templateHash,
        request.body as Parameters<PreflightService['preflight']>[2],
      ),
    }),
  });
}
