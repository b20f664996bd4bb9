// The export settings an HTML5 package is made with (seed exportSettings, HTML rows), checked as hostile input and
// completed with the network's defaults where the settings leave a choice open.
import { type Static, Type } from 'typebox';
import { AppError } from '../../errors.js';
import type { UrlTarget } from './click.js';
import { type AdNetworkDef, packagingFor } from './networks.js';

/** The exportSettings of an HTML5 package: part of the export request schema (formats/registry.ts composes it). */
export const Html5SettingsSchema = Type.Object({
  quality: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 100,
      description: 'HTML: 60 low, 80 medium (default), 90 high, 100 uncompressed',
    }),
  ),
  networkId: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 2147483647,
      description: 'HTML: ad network whose rules the package follows (GET /v1/adnetworks/forHtml); default 1, IAB',
    }),
  ),
  retina: Type.Optional(Type.Boolean({ description: 'HTML: also save retina images' })),
  retinaOnly: Type.Optional(Type.Boolean({ description: 'HTML: exclude non-retina images from the zip' })),
  convertCustomFonts: Type.Optional(
    Type.Boolean({ description: 'HTML: convert custom fonts to SVG; default: the network decides' }),
  ),
  minifyHtml: Type.Optional(Type.Boolean({ description: 'HTML' })),
  urlTarget: Type.Optional(Type.Enum(['_blank', '_self', '_top', '_parent'], { description: 'HTML' })),
  useAsClickTag: Type.Optional(Type.Boolean({ description: 'HTML' })),
  clickTagUrl: Type.Optional(Type.String({ format: 'uri', maxLength: 2048, description: 'HTML' })),
  includeFallbackImage: Type.Optional(Type.Boolean({ description: 'HTML: add a JPG fallback image to the zip' })),
});

/**
 * The settings a package is made with: the request's, where `null` (stored defaults) means "the network decides"
 * for convertCustomFonts and "none" for clickTagUrl.
 */
export type Html5Settings = Omit<Static<typeof Html5SettingsSchema>, 'convertCustomFonts' | 'clickTagUrl'> & {
  convertCustomFonts?: boolean | null;
  clickTagUrl?: string | null;
};

export interface ResolvedHtml5Settings {
  network: AdNetworkDef;
  quality: number;
  /** Scales the images are written at. */
  scales: number[];
  convertCustomFonts: boolean;
  /** The web font format the network accepts (CM360 lists woff but not woff2). */
  fontFormat: 'woff2' | 'woff';
  minifyHtml: boolean;
  target: UrlTarget;
  /** The default value of the click variable ('' when none). */
  clickUrl: string;
  includeFallbackImage: boolean;
  /** Choices the settings asked for that the network overrides. */
  notes: string[];
}

const TARGETS: readonly UrlTarget[] = ['_blank', '_self', '_top', '_parent'];

function invalid(message: string): never {
  throw new AppError('VALIDATION_FAILED', message);
}

export function resolveHtml5Settings(given: Html5Settings = {}): ResolvedHtml5Settings {
  const quality = given.quality ?? 80;
  if (!Number.isInteger(quality) || quality < 1 || quality > 100) {
    invalid(`exportSettings.quality must be an integer from 1 to 100, received ${quality}`);
  }
  const network = packagingFor(given.networkId ?? undefined);
  if (!network)
    invalid(`exportSettings.networkId ${given.networkId} is not an ad network (GET /v1/adnetworks/forHtml)`);
  if (!network.html5 || !network.status) {
    invalid(`exportSettings.networkId ${network.id} (${network.name}) does not accept HTML5 packages`);
  }
  const requested = given.urlTarget ?? network.packaging.clickThrough.defaultTarget;
  if (!TARGETS.includes(requested)) invalid(`exportSettings.urlTarget must be one of ${TARGETS.join(', ')}`);
  const notes: string[] = [];
  let target = requested;
  if (network.packaging.clickThrough.targetForced && requested !== '_blank') {
    notes.push(`urlTarget ${requested} replaced by _blank: ${network.name} opens landing pages in a new window`);
    target = '_blank';
  }
  let clickUrl = '';
  if (given.useAsClickTag) {
    const url = given.clickTagUrl ?? '';
    if (!/^https?:\/\/[^\s/?#]+[^\s]*$/.test(url)) {
      invalid(`exportSettings.clickTagUrl must be an http(s) URL when useAsClickTag is true, received '${url}'`);
    }
    clickUrl = url;
    if (network.packaging.clickThrough.kind === 'wholeAd') {
      notes.push(`clickTagUrl is not written into the package: ${network.name} makes the whole ad clickable itself`);
    } else if (network.packaging.clickThrough.urlSetByNetwork) {
      notes.push(`clickTagUrl is not written into the package: ${network.name} sets landing URLs in the campaign`);
    }
  }
  const retinaOnly = given.retinaOnly === true;
  const allowed = network.packaging.allowedExtensions;
  const fontFormat = !allowed || allowed.includes('woff2') ? 'woff2' : allowed.includes('woff') ? 'woff' : null;
  return {
    network,
    quality,
    scales: retinaOnly ? [2] : given.retina ? [1, 2] : [1],
    // Networks that take no font files (Google Ads, The Trade Desk) get their text as SVG unless told otherwise.
    convertCustomFonts:
      given.convertCustomFonts ?? (network.packaging.fonts === 'googleFontsOnly' || fontFormat === null),
    fontFormat: fontFormat ?? 'woff2',
    minifyHtml: given.minifyHtml === true,
    target,
    clickUrl,
    includeFallbackImage: given.includeFallbackImage === true,
    notes,
  };
}
