// Preflight of one variant as a request describes it (POST /v1/templates/{hash}/preflight and `placard preflight`):
// the document with the element and general changes applied (domain/changes.ts, the same rules as an export with
// changes), the sizes chosen, the export type's scale and the format's own checks (HTML5 weight). The API and the CLI
// call this one function, so they find the same things.
import { applyChanges, type ElementChangesInput, type GeneralChangesInput } from '../../domain/changes.js';
import type { DesignDocument } from '../../domain/design.schema.js';
import type { FontLookup } from '../../elements/element-kind.js';
import { AppError, type ErrorDetail } from '../../errors.js';
import type { AssetFetcher } from '../../render/media/assets.js';
import type { Html5Settings } from '../html5/settings.js';
import { EXPORT_TYPES, findFormat } from '../registry.js';
import { type PreflightReport, preflightDocument } from './preflight.js';

/** Media fetched by preflight give up sooner than a render's (15 s): it is a check before the export, not the export. */
export const PREFLIGHT_FETCH_TIMEOUT_MS = 5000;

export interface VariantRequest {
  elementsChanges?: ElementChangesInput[];
  generalChanges?: GeneralChangesInput;
  /** An export type (any case, aliases); decides the scale that applies and the format's checks. */
  type?: string;
  exportSettings?: Html5Settings & { scale?: number; allowedSizeHashesOnly?: string[] };
  /** As exportSettings.allowedSizeHashesOnly (either may be given; both: they must agree). */
  allowedSizeHashesOnly?: string[];
}

/** The sizes to check: every size, or those named; an unknown hash is UNKNOWN_SIZE_HASH as for an export. */
export function chosenSizes(doc: DesignDocument, allowed: readonly string[] | undefined, field: string): number[] {
  const all = doc.sizes.map((_, i) => i);
  if (!allowed) return all;
  const details: ErrorDetail[] = [];
  allowed.forEach((hash, i) => {
    if (!doc.sizes.some((size) => size.hash === hash)) {
      details.push({
        path: `/${field.replaceAll('.', '/')}/${i}`,
        in: 'body',
        message: `${hash} is not a size of the design`,
      });
    }
  });
  if (details.length > 0) {
    const known = doc.sizes.map((s) => `${s.hash} (${s.width}x${s.height})`).join(', ');
    const unknown = details.map((d) => d.message.split(' ')[0]).join(', ');
    throw new AppError(
      'UNKNOWN_SIZE_HASH',
      `${field}: ${unknown} ${details.length === 1 ? 'is not a size' : 'are not sizes'} of the design; its sizes: ${known}`,
      { details },
    );
  }
  const wanted = new Set(allowed);
  return all.filter((i) => wanted.has(doc.sizes[i]!.hash as string));
}

/** Applies the request's changes to `source` and preflights the result; findings name the sizes by `source`'s hashes. */
export async function preflightVariant(
  source: DesignDocument,
  request: VariantRequest,
  deps: { fonts: FontLookup; fetcher: AssetFetcher },
): Promise<PreflightReport> {
  const changed = applyChanges(source, request.elementsChanges ?? [], request.generalChanges, deps.fonts);
  // The type's format decides the output scale (raster types) and adds its own checks (HTML5 weight); no type: scale 1.
  const format = request.type === undefined ? undefined : findFormat(request.type);
  if (request.type !== undefined && !format) {
    throw new AppError(
      'VALIDATION_FAILED',
      `type: must be one of ${EXPORT_TYPES.join(', ')}, received '${request.type}'`,
    );
  }
  const settings = format?.defaults((request.exportSettings ?? {}) as never);
  const fromSettings = request.exportSettings?.allowedSizeHashesOnly;
  const allowed = request.allowedSizeHashesOnly ?? fromSettings;
  const field = request.allowedSizeHashesOnly ? 'allowedSizeHashesOnly' : 'exportSettings.allowedSizeHashesOnly';
  const sizes = chosenSizes(source, allowed, field);
  const scale = format?.outputScale?.(settings as never) ?? 1;
  return preflightDocument(changed, {
    fetcher: deps.fetcher,
    scale,
    sizes,
    sizeHashes: source.sizes.map((size) => size.hash ?? ''),
    formatChecks: format?.preflight
      ? (doc, sizeIndex, about) => format.preflight!(doc, sizeIndex, about, settings as never, deps.fetcher)
      : undefined,
  });
}
