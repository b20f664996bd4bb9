// Preflight of a template with changes (issue 20): the caller must see the template; the checks are the export's own
// (formats/preflight), run on a render thread (RenderPool.preflight): laying out every text and reading every image
// is CPU work that must not hold the API's event loop. Nothing is rendered, stored or created.
import type { Actor } from '../domain/actor.js';
import { applyChanges } from '../domain/changes.js';
import { readDocument } from '../domain/design.schema.js';
import type { FontLookup } from '../elements/element-kind.js';
import { AppError } from '../errors.js';
import type { RenderPool } from '../formats/pool.js';
import { type Finding, sortFindings } from '../formats/preflight/finding.js';
import type { VariantRequest } from '../formats/preflight/variant.js';
import { teamGroup } from '../jobs/fair.js';
import type { BrandFamily, BrandFontPreparer } from '../render/text/brand-fonts.js';
import type { DesignService } from './design.service.js';
import { documentOf } from './design.service.js';

export interface PreflightServiceDeps {
  designs: Pick<DesignService, 'requireDesign'>;
  /**
   * The render threads. Each fetches SOURCE media through its guarded fetcher with preflight's short timeout, and its
   * cache makes a second preflight of a source free.
   */
  pool: Pick<RenderPool, 'preflight'>;
  /**
   * The team's brand fonts (font.service.ts): FONTFAMILY changes may name them, and a text in a brand font is measured
   * with that font, as its export draws it.
   */
  fonts: { lookup(teamId: number): Promise<FontLookup>; preparer: BrandFontPreparer };
}

/** Findings name a brand family as its team knows it, never by the internal name the render thread registered. */
function withDisplayNames(findings: Finding[], families: readonly BrandFamily[]): Finding[] {
  if (families.length === 0) return findings;
  let json = JSON.stringify(findings);
  for (const family of families) json = json.replaceAll(family.name, family.displayName.replace(/["\\]/g, ''));
  return JSON.parse(json) as Finding[];
}

export function createPreflightService(deps: PreflightServiceDeps) {
  return {
    /** The body of POST /v1/templates/{hash}/preflight, validated by its schema. */
    async preflight(actor: Actor, templateHash: string, request: VariantRequest) {
      const template = await deps.designs.requireDesign(actor, templateHash, 'read', 'templateHash');
      // The changes are applied here, with the team's fonts (a FONTFAMILY change may name a brand family; applying
      // changes is cheap), then the brand families the variant uses go to the thread with it, under their internal
      // names, as for an export. Errors of the changes are the export's own (UNKNOWN_ELEMENT, …).
      const changed = applyChanges(
        documentOf(template),
        request.elementsChanges ?? [],
        request.generalChanges,
        await deps.fonts.lookup(actor.teamId),
      );
      const prepared = await deps.fonts.preparer.prepare(actor.teamId, template.project_id, changed);
      const report = await deps.pool.preflight(
        {
          document: prepared.document as typeof changed,
          request: { ...request, elementsChanges: undefined, generalChanges: undefined },
          brandFamilies: prepared.brandFamilies,
        },
        { group: teamGroup(actor.teamId) },
      );
      return {
        findings: sortFindings(withDisplayNames(report.findings, prepared.brandFamilies)),
        summary: report.summary,
      };
    },

    /**
     * The body of POST /v1/studio/preflight: one size of a document being edited (not yet saved), so the editor can
     * mark what a change got wrong as the user makes it. A size without a hash (added in the editor) is named
     * `size-<index>` in the findings.
     */
    async draft(actor: Actor, raw: unknown, sizeIndex: number) {
      const document = readDocument(raw, { pointer: '/document' });
      if (!document.sizes[sizeIndex]) {
        throw new AppError('VALIDATION_FAILED', `sizeIndex ${sizeIndex} is not a size of the document`, {
          details: [{ path: '/sizeIndex', message: `must be below ${document.sizes.length}` }],
        });
      }
      const hashed = {
        ...document,
        sizes: document.sizes.map((size, i) => ({ ...size, hash: size.hash ?? `size-${i}` })),
      };
      const report = await deps.pool.preflight(
        { document: hashed, request: { allowedSizeHashesOnly: [hashed.sizes[sizeIndex]!.hash] } },
        { group: teamGroup(actor.teamId) },
      );
      return { findings: sortFindings(report.findings), summary: report.summary };
    },
  };
}

export type PreflightService = ReturnType<typeof createPreflightService>;
