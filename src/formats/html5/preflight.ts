// The HTML5 format's preflight check (issue 20): the package's weight, estimated without packaging, against the chosen
// network's limits (networks.ts). The estimate adds what the packager puts in the zip: each image as it would be
// re-encoded at its box size (the fetched file's bytes scaled by the share of its pixels that remain; never more than
// the file), each video file whole where it plays, a subset font file per face and the page itself. The export
// measures the real zip (validate.ts); this is the answer before anything is made.
import type { DesignDocument } from '../../domain/design.schema.js';
import type { BaseElement } from '../../elements/common.js';
import { kindOfElement } from '../../elements/registry.js';
import type { AssetFetcher } from '../../render/media/assets.js';
import { parseImageSource } from '../../render/media/image-source.js';
import type { Finding } from '../preflight/finding.js';
import { iabWeightFor, packagingFor } from './networks.js';

const KB = 1024;
/** index.html with its CSS, click code and manifest, minified or not: measured at 4–9 KB on the demo designs. */
export const PAGE_BYTES = 8 * KB;
/** A face subset to the characters a banner uses: measured at 6–20 KB in woff2. */
export const FONT_FACE_BYTES = 16 * KB;

const kb = (bytes: number) => `${Math.round(bytes / KB)} KB`;

export interface Html5WeightOptions {
  fetcher: AssetFetcher;
  networkId: number;
  quality: number;
  retina: boolean;
}

/** What the estimate is made of, for the finding's details. */
export interface WeightEstimate {
  bytes: number;
  images: number;
  videos: number;
  fonts: number;
  page: number;
}

async function fetchedBytes(fetcher: AssetFetcher, url: string): Promise<{ bytes: number; pixels: number } | null> {
  try {
    const media = await fetcher.fetch(url);
    return { bytes: media.bytes.length, pixels: (media.width ?? 0) * (media.height ?? 0) };
  } catch {
    return null; // unreachable or refused: preflight reports it as a SOURCE_* finding
  }
}

export async function estimateHtml5Weight(
  document: DesignDocument,
  sizeIndex: number,
  options: Pick<Html5WeightOptions, 'fetcher' | 'retina'>,
): Promise<WeightEstimate> {
  const size = document.sizes[sizeIndex]!;
  const density = options.retina ? 4 : 1;
  const faces = new Set<string>();
  let images = 0;
  let videos = 0;
  for (const slide of size.slides) {
    for (const element of slide.elements as BaseElement[]) {
      if (element.visible === false) continue;
      const kind = kindOfElement(element);
      const font = kind.fontOf?.(element);
      if (font) faces.add(`${font.fontFamily}|${font.fontVariant}`);
      for (const source of kind.imagesOf?.(element) ?? []) {
        const request = parseImageSource(source);
        if (request.src.trimStart().startsWith('<')) {
          images += request.src.length;
          continue;
        }
        const fetched = await fetchedBytes(options.fetcher, request.src);
        if (!fetched) continue;
        if (request.kind === 'videoFrame') {
          videos += fetched.bytes;
          continue;
        }
        const boxPixels = element.width * element.height * density;
        const share = fetched.pixels > 0 ? Math.min(1, boxPixels / fetched.pixels) : 1;
        images += Math.round(fetched.bytes * share);
      }
    }
  }
  const fonts = faces.size * FONT_FACE_BYTES;
  return { bytes: images + videos + fonts + PAGE_BYTES, images, videos, fonts, page: PAGE_BYTES };
}

/**
 * HTML5_WEIGHT for one size: an error over the network's zip limit (the network refuses the upload), a warning over
 * its initial-load weight (IAB's per-size figure for the generic profile), nothing otherwise.
 */
export async function html5WeightFindings(
  document: DesignDocument,
  sizeIndex: number,
  about: Pick<Finding, 'sizeHash' | 'sizeName'>,
  options: Html5WeightOptions,
): Promise<Finding[]> {
  const network = packagingFor(options.networkId);
  if (!network) return [];
  const size = document.sizes[sizeIndex]!;
  const estimate = await estimateHtml5Weight(document, sizeIndex, options);
  const rules = network.packaging;
  const iab = network.type === 'standard' ? iabWeightFor(size.width, size.height) : null;
  const initialCap = iab?.initialBytes ?? rules.maxInitialLoadBytes;
  const over =
    rules.maxZipBytes !== null && estimate.bytes > rules.maxZipBytes
      ? { severity: 'error' as const, limit: rules.maxZipBytes, rule: 'maxZipBytes' }
      : initialCap !== null && estimate.bytes > initialCap
        ? { severity: 'warning' as const, limit: initialCap, rule: 'maxInitialLoadBytes' }
        : null;
  if (!over) return [];
  return [
    {
      code: 'HTML5_WEIGHT',
      severity: over.severity,
      ...about,
      elementName: null,
      slideNumber: 0,
      message: `${about.sizeName} (${size.width}x${size.height}): the HTML5 package is estimated at ${kb(estimate.bytes)}, over the ${kb(over.limit)} ${over.rule === 'maxZipBytes' ? `${network.name} accepts` : `${network.name} allows at initial load`}; use smaller images or fewer fonts`,
      details: { ...estimate, limit: over.limit, rule: over.rule, networkId: network.id, network: network.name },
    },
  ];
}
