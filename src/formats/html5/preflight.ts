// The HTML5 format's preflight check (issue 20): the package's weight against the chosen network's limits
// (networks.ts). The weight is the packager's own: the package is made (in memory, with the export's settings) and
// measured as the network measures it — the zip, the extracted files, or both. An estimate from the sources' sizes
// was tried first and was off by a factor of 7 (the packager re-encodes every image at its box size), so the answer
// is the real package: one truth, at the cost of one package per size (see `npm run bench -- preflight`).
import type { DesignDocument, DesignSize } from '../../domain/design.schema.js';
import { AppError } from '../../errors.js';
import type { AssetFetcher } from '../../render/media/assets.js';
import type { Finding } from '../preflight/finding.js';
import { iabWeightFor } from './networks.js';
import { type Html5Package, packageHtml5 } from './package.js';
import { type Html5Settings, resolveHtml5Settings } from './settings.js';

const KB = 1024;
const kb = (bytes: number) => `${Math.round(bytes / KB)} KB`;

/**
 * HTML5_WEIGHT for one size: an error over the network's zip limit (the network refuses the upload), a warning over
 * its initial-load weight (IAB's per-size figure for the generic profile), nothing otherwise. A package the network's
 * blocking rules refuse (AD_NETWORK_RULE) or whose media cannot be used has no weight to report: the export says why.
 */
export async function html5WeightFindings(
  document: DesignDocument,
  sizeIndex: number,
  about: Pick<Finding, 'sizeHash' | 'sizeName'>,
  settings: Html5Settings,
  fetcher: AssetFetcher,
): Promise<Finding[]> {
  let pkg: Html5Package;
  try {
    pkg = await packageHtml5(document, sizeIndex, settings, { fetcher });
  } catch (error) {
    if (error instanceof AppError && (error.code === 'AD_NETWORK_RULE' || error.code === 'SOURCE_REJECTED')) return [];
    throw error;
  }
  return weightFindings(pkg, document.sizes[sizeIndex]!, about, settings);
}

/** HTML5_WEIGHT of a package made already (an export's own file). */
export function weightFindings(
  pkg: Pick<Html5Package, 'zip' | 'files'>,
  size: Pick<DesignSize, 'width' | 'height'>,
  about: Pick<Finding, 'sizeHash' | 'sizeName'>,
  settings: Html5Settings,
): Finding[] {
  const { network } = resolveHtml5Settings(settings);
  const zipBytes = pkg.zip.length;
  const unzippedBytes = [...pkg.files.values()].reduce((sum, bytes) => sum + bytes.length, 0);
  const rules = network.packaging;
  const measured =
    rules.weightMeasuredOn === 'zipped'
      ? zipBytes
      : rules.weightMeasuredOn === 'unzipped'
        ? unzippedBytes
        : Math.max(zipBytes, unzippedBytes);
  const iab = network.type === 'standard' ? iabWeightFor(size.width, size.height) : null;
  const initialCap = iab?.initialBytes ?? rules.maxInitialLoadBytes;
  const over =
    rules.maxZipBytes !== null && measured > rules.maxZipBytes
      ? { severity: 'error' as const, limit: rules.maxZipBytes, rule: 'maxZipBytes', bytes: measured }
      : initialCap !== null && zipBytes > initialCap
        ? { severity: 'warning' as const, limit: initialCap, rule: 'maxInitialLoadBytes', bytes: zipBytes }
        : null;
  if (!over) return [];
  return [
    {
      code: 'HTML5_WEIGHT',
      severity: over.severity,
      ...about,
      elementName: null,
      slideNumber: 0,
      message: `${about.sizeName} (${size.width}x${size.height}): the HTML5 package weighs ${kb(over.bytes)}, over the ${kb(over.limit)} ${over.rule === 'maxZipBytes' ? `${network.name} accepts` : `${network.name} allows at initial load`}; use smaller or simpler images, fewer fonts, or a lower quality`,
      details: {
        zipBytes,
        unzippedBytes,
        files: pkg.files.size,
        limit: over.limit,
        rule: over.rule,
        measuredOn: rules.weightMeasuredOn,
        networkId: network.id,
        network: network.name,
      },
    },
  ];
}
