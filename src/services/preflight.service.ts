// Preflight of a template with changes (issue 20): the caller must see the template; the checks are the export's own
// (formats/preflight). Nothing is rendered, stored or created.
import type { Actor } from '../domain/actor.js';
import type { FontLookup } from '../elements/element-kind.js';
import { sortFindings } from '../formats/preflight/finding.js';
import { preflightVariant, type VariantRequest } from '../formats/preflight/variant.js';
import type { AssetFetcher } from '../render/media/assets.js';
import type { DesignService } from './design.service.js';
import { documentOf } from './design.service.js';

export interface PreflightServiceDeps {
  designs: Pick<DesignService, 'requireDesign'>;
  /** The guarded fetcher with preflight's short timeout; its cache makes a second preflight of a source free. */
  fetcher: AssetFetcher;
  fonts: FontLookup;
}

export function createPreflightService(deps: PreflightServiceDeps) {
  return {
    /** The body of POST /v1/templates/{hash}/preflight, validated by its schema. */
    async preflight(actor: Actor, templateHash: string, request: VariantRequest) {
      const template = await deps.designs.requireDesign(actor, templateHash, 'read', 'templateHash');
      const report = await preflightVariant(documentOf(template), request, deps);
      return { findings: sortFindings(report.findings), summary: report.summary };
    },
  };
}

export type PreflightService = ReturnType<typeof createPreflightService>;
