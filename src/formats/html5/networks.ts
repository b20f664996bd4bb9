// The ad networks an HTML5 export can be packaged for (SPEC §11), as data: what the API lists about each one, and
// the packaging rules the HTML5 packager and its validator follow (each network cites its public sources as keys
// [Sn]). Numbers are defaults from public docs, not guarantees; publishers often set tighter
// limits. KB and MB are read as 1024 and 1024² bytes: Google states its 150 KB cap as 153,600 bytes, the others don't
// say. A null limit means the sources name none. Ids are stable: clients pass them as `exportSettings.networkId`.
import { type Static, type TSchema, Type } from 'typebox';

const KB = 1024;
const MB = 1024 * 1024;

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const ClickThrough = Type.Object({
  /**
   * How the creative opens the landing page:
   * wholeAd: the network makes the whole ad clickable (Google Ads; `ExitApi.exit()` only to restrict the area);
   * clickTagVar: a global `var clickTag = "…"` in `<head>` that the ad server replaces;
   * clickTagQueryParam: the ad server passes the URL as a query parameter the creative reads (IAB standard);
   * adformDhtml: `dhtml.getVar('clickTAG', fallback)` after the Adform DHTML loader;
   * appnexusLib: `APPNEXUS.getClickTag()` from the AppNexus HTML5 library;
   * sizmekEB: `EB.clickthrough()` after EBLoader;
   * flashtalkingApi: `myFT.clickTag(n)`, URLs set in the campaign;
   * fbPlayable: `FbPlayableAd.onCTAClick()` (Meta playable ads only).
   */
  kind: Type.Enum([
    'wholeAd',
    'clickTagVar',
    'clickTagQueryParam',
    'adformDhtml',
    'appnexusLib',
    'sizmekEB',
    'flashtalkingApi',
    'fbPlayable',
  ]),
  /** Name of the click variable or parameter; names are case-sensitive (Adform's is clickTAG). */
  variable: Nullable(Type.String()),
  /** Pattern every click variable name must match (GAM: clickTag, clickTag1, …). */
  namePattern: Nullable(Type.String()),
  /** Script the network requires for its click API. */
  library: Nullable(Type.String()),
  /** The click script must stay unminified, global and in `<head>` (Google's validators read it). */
  keepUnminified: Type.Boolean(),
  /** The clickTag URL of `exportSettings` is only ever a fallback; a hard-coded target is rejected (GAM). */
  hardCodedUrlRejected: Type.Boolean(),
  /** The creative carries no landing URL at all: the network sets it in the campaign (Flashtalking). */
  urlSetByNetwork: Type.Boolean(),
  /** Most click tags a creative may have. */
  maxClickTags: Nullable(Type.Integer({ minimum: 1 })),
  defaultTarget: Type.Enum(['_blank', '_self', '_top', '_parent']),
  /** Only `_blank` is valid; `urlTarget` values other than it are overridden with a warning (DV360, Amazon). */
  targetForced: Type.Boolean(),
});

export const PackagingRules = Type.Object({
  clickThrough: ClickThrough,
  /** A manifest file the network requires at the root of the zip. */
  manifest: Type.Enum(['none', 'adform-manifest.json', 'flashtalking-manifest.js']),
  maxZipBytes: Nullable(Type.Integer({ minimum: 1 })),
  /** What `maxZipBytes` is measured on: the zip, the extracted files, or both must fit (GAM). */
  weightMeasuredOn: Type.Enum(['zipped', 'unzipped', 'both']),
  /** Weight loaded before the subload may start (IAB sizes refine it: see iabWeightFor). */
  maxInitialLoadBytes: Nullable(Type.Integer({ minimum: 1 })),
  maxFiles: Nullable(Type.Integer({ minimum: 1 })),
  maxInitialRequests: Nullable(Type.Integer({ minimum: 1 })),
  maxTotalRequests: Nullable(Type.Integer({ minimum: 1 })),
  /** Lower-case extensions allowed in the zip; null: any but FORBIDDEN_EVERYWHERE. */
  allowedExtensions: Nullable(Type.Array(Type.String())),
  /** Pattern every file name in the zip must match. */
  fileNamePattern: Nullable(Type.String()),
  /** Longest name of the zip, without ".zip". */
  maxZipNameLength: Nullable(Type.Integer({ minimum: 1 })),
  /**
   * The primary HTML file: any name, exactly index.html, or the one the manifest names; at the root of the zip, or
   * at the root or in one referenced folder (GAM).
   */
  index: Type.Object({
    name: Type.Enum(['any', 'index.html', 'manifestSource', 'manifestFilename']),
    location: Type.Enum(['root', 'rootOrOneFolder']),
  }),
  /** `<meta name="ad.size" content="width=W,height=H">` in `<head>`. */
  adSizeMeta: Type.Enum(['required', 'optional']),
  /**
   * The static backup image: notRequired, delivered beside the zip (outsideZip; outsideZipRequired when the
   * network refuses the creative without one), or put in the zip (insideZip).
   */
  backupImage: Type.Enum(['notRequired', 'outsideZip', 'outsideZipRequired', 'insideZip']),
  /** A backup image inside the zip counts toward maxZipBytes and maxFiles. */
  backupCountsTowardWeight: Type.Boolean(),
  maxAnimationSeconds: Nullable(Type.Number({ exclusiveMinimum: 0 })),
  maxLoops: Nullable(Type.Integer({ minimum: 1 })),
  /** Absolute http(s) references: forbidden (everything in the zip), allowListed (allowedHosts only) or allowed. */
  externalResources: Type.Enum(['forbidden', 'allowListed', 'allowed']),
  allowedHosts: Type.Array(Type.String()),
  httpsOnly: Type.Boolean(),
  /** Inline `<svg>` in the HTML is refused; SVGs must be standalone files (GAM). */
  inlineSvgForbidden: Type.Boolean(),
  /** Every file of the zip must be referenced (CM360). */
  unreferencedFilesForbidden: Type.Boolean(),
  forbiddenApis: Type.Array(
    Type.Enum(['localStorage', 'sessionStorage', 'geolocation', 'audio', 'video', 'iframe', 'autoplayAudio']),
  ),
  /** googleFontsOnly: other fonts are converted to SVG or images (`convertCustomFonts` on by default). */
  fonts: Type.Enum(['any', 'googleFontsOnly']),
  /** The unminified source goes in the zip too (`original/` beside `publish/`). */
  includeUnminifiedSource: Type.Boolean(),
  /** Keys of the sources in adnetworks.md §7. */
  sources: Type.Array(Type.String()),
});

export const AdNetworkDef = Type.Object({
  id: Type.Integer({ minimum: 1 }),
  name: Type.String(),
  /** standard (a profile, not a company), adNetwork, adServer, dsp or social. */
  type: Type.Enum(['standard', 'adNetwork', 'adServer', 'dsp', 'social']),
  /** The network expects third-party ad tags (listed by /v1/adnetworks/forAdserving). */
  adTag: Type.Boolean(),
  /** The network takes HTML5 zips (listed by /v1/adnetworks/forHtml). */
  html5: Type.Boolean(),
  /** Whether the network is offered at all; each team may still disable it for itself. */
  status: Type.Boolean(),
  packaging: PackagingRules,
});

export type ClickThrough = Static<typeof ClickThrough>;
export type PackagingRules = Static<typeof PackagingRules>;
export type AdNetworkDef = Static<typeof AdNetworkDef>;

/** Never in any zip, for any network [S14]; `__MACOSX/` and `.DS_Store` are stripped as well. */
export const FORBIDDEN_EVERYWHERE = ['swf', 'flv'];

/** The id of the generic IAB profile, used when an HTML export names no `networkId` (SPEC §11). */
export const DEFAULT_AD_NETWORK_ID = 1;

const click = (overrides: Partial<ClickThrough> & Pick<ClickThrough, 'kind'>): ClickThrough => ({
  variable: null,
  namePattern: null,
  library: null,
  keepUnminified: false,
  hardCodedUrlRejected: false,
  urlSetByNetwork: false,
  maxClickTags: null,
  defaultTarget: '_blank',
  targetForced: false,
  ...overrides,
});

/** What a network's entry does not say: no limit found, nothing forbidden beyond FORBIDDEN_EVERYWHERE. */
const rules = (overrides: Partial<PackagingRules> & Pick<PackagingRules, 'clickThrough' | 'sources'>) =>
  ({
    manifest: 'none',
    maxZipBytes: null,
    weightMeasuredOn: 'zipped',
    maxInitialLoadBytes: null,
    maxFiles: null,
    maxInitialRequests: null,
    maxTotalRequests: null,
    allowedExtensions: null,
    fileNamePattern: null,
    maxZipNameLength: null,
    index: { name: 'any', location: 'root' },
    adSizeMeta: 'optional',
    backupImage: 'notRequired',
    backupCountsTowardWeight: false,
    maxAnimationSeconds: null,
    maxLoops: null,
    externalResources: 'allowed',
    allowedHosts: [],
    httpsOnly: false,
    inlineSvgForbidden: false,
    unreferencedFilesForbidden: false,
    forbiddenApis: [],
    fonts: 'any',
    includeUnminifiedSource: false,
    ...overrides,
  }) satisfies PackagingRules;

const network = (def: Omit<AdNetworkDef, 'status'> & { status?: boolean }): AdNetworkDef => ({
  status: true,
  ...def,
});

export const AD_NETWORKS: readonly AdNetworkDef[] = [
  network({
    id: DEFAULT_AD_NETWORK_ID,
    name: 'IAB standard (generic)',
    type: 'standard',
    adTag: false,
    html5: true,
    // Accepted by the DSPs that read the clickTag query parameter; everything local, backup beside the zip.
    packaging: rules({
      clickThrough: click({ kind: 'clickTagQueryParam', variable: 'clickTag' }),
      maxInitialLoadBytes: 150 * KB,
      maxInitialRequests: 10,
      allowedExtensions: ['html', 'css', 'js', 'json', 'jpg', 'jpeg', 'png', 'gif', 'svg', 'woff', 'woff2'],
      index: { name: 'index.html', location: 'root' },
      adSizeMeta: 'required',
      backupImage: 'outsideZip',
      // IAB's 15 s is widely repeated but unverified in IAB text [S35]: no animation cap by default.
      externalResources: 'forbidden',
      httpsOnly: true,
      sources: ['S18', 'S19', 'S22', 'S33'],
    }),
  }),
  network({
    id: 2,
    name: 'Google Ads',
    type: 'adNetwork',
    adTag: false,
    html5: true,
    packaging: rules({
      clickThrough: click({ kind: 'wholeAd' }),
      maxZipBytes: 150 * KB,
      maxFiles: 40,
      allowedExtensions: ['html', 'css', 'js', 'gif', 'png', 'jpg', 'jpeg', 'svg'],
      fileNamePattern: '^[A-Za-z0-9._-]+$',
      maxZipNameLength: 50,
      adSizeMeta: 'required',
      backupCountsTowardWeight: true,
      maxAnimationSeconds: 30,
      externalResources: 'forbidden',
      httpsOnly: true,
      forbiddenApis: ['localStorage', 'sessionStorage', 'audio', 'video', 'iframe'],
      fonts: 'googleFontsOnly',
      sources: ['S1', 'S2', 'S3', 'S4', 'S6', 'S7'],
    }),
  }),
  network({
    id: 3,
    name: 'Campaign Manager 360',
    type: 'adServer',
    adTag: true,
    html5: true,
    packaging: rules({
      clickThrough: click({ kind: 'clickTagVar', variable: 'clickTag', keepUnminified: true }),
      maxZipBytes: Math.round(9.5 * MB),
      maxFiles: 100,
      // The stored copy of the list ends with "WOFF…"; these are the extensions it shows.
      allowedExtensions: [
        'html',
        'htm',
        'js',
        'css',
        'jpg',
        'jpeg',
        'gif',
        'png',
        'json',
        'xml',
        'svg',
        'eot',
        'otf',
        'ttf',
        'woff',
      ],
      fileNamePattern: '^[^%]+$',
      backupImage: 'outsideZip',
      unreferencedFilesForbidden: true,
      forbiddenApis: ['localStorage', 'sessionStorage'],
      sources: ['S10', 'S11'],
    }),
  }),
  network({
    id: 4,
    name: 'Display & Video 360',
    type: 'dsp',
    adTag: true,
    html5: true,
    packaging: rules({
      clickThrough: click({ kind: 'clickTagVar', variable: 'clickTag', keepUnminified: true, targetForced: true }),
      maxZipBytes: 5 * MB,
      weightMeasuredOn: 'unzipped',
      maxTotalRequests: 100,
      allowedExtensions: [
        'html',
        'htm',
        'css',
        'js',
        'jpg',
        'jpeg',
        'gif',
        'png',
        'svg',
        'dfont',
        'eot',
        'otf',
        'tte',
        'ttf',
        'woff',
        'woff2',
      ],
      maxAnimationSeconds: 30,
      forbiddenApis: ['autoplayAudio'],
      sources: ['S3', 'S12', 'I2'],
    }),
  }),
  network({
    id: 5,
    name: 'Google Ad Manager',
    type: 'adServer',
    adTag: true,
    html5: true,
    packaging: rules({
      clickThrough: click({
        kind: 'clickTagVar',
        variable: 'clickTag',
        namePattern: '^clickTag\\d*$',
        keepUnminified: true,
        hardCodedUrlRejected: true,
      }),
      maxZipBytes: 1000 * KB,
      weightMeasuredOn: 'both',
      maxFiles: 50,
      index: { name: 'any', location: 'rootOrOneFolder' },
      adSizeMeta: 'required',
      externalResources: 'allowListed',
      allowedHosts: ['s0.2mdn.net'],
      httpsOnly: true,
      inlineSvgForbidden: true,
      sources: ['S13', 'S14', 'S15', 'S16', 'S17'],
    }),
  }),
  network({
    id: 6,
    name: 'Adform',
    type: 'adServer',
    adTag: true,
    html5: true,
    packaging: rules({
      clickThrough: click({
        kind: 'adformDhtml',
        variable: 'clickTAG',
        library: 'https://s1.adform.net/banners/scripts/rmb/Adform.DHTML.js',
      }),
      manifest: 'adform-manifest.json',
      weightMeasuredOn: 'unzipped',
      index: { name: 'manifestSource', location: 'root' },
      externalResources: 'allowListed',
      allowedHosts: ['s1.adform.net'],
      sources: ['S23', 'S24', 'S25'],
    }),
  }),
  network({
    id: 7,
    name: 'Xandr (Microsoft Invest)',
    type: 'dsp',
    adTag: true,
    html5: true,
    packaging: rules({
      clickThrough: click({
        kind: 'appnexusLib',
        variable: 'clickTag',
        library: 'https://acdn.adnxs.com/html5-lib/1.4.1/appnexus-html5-lib.min.js',
        hardCodedUrlRejected: true,
      }),
      index: { name: 'index.html', location: 'root' },
      externalResources: 'allowListed',
      allowedHosts: ['acdn.adnxs.com'],
      sources: ['S21', 'S22'],
    }),
  }),
  network({
    id: 8,
    name: 'Amazon Ads (DSP, Amazon Ad Server)',
    type: 'dsp',
    adTag: true,
    html5: true,
    packaging: rules({
      clickThrough: click({ kind: 'sizmekEB', targetForced: true }),
      index: { name: 'index.html', location: 'root' },
      backupImage: 'insideZip',
      // Amazon's own sites; the DSP off Amazon allows 30 s.
      maxAnimationSeconds: 15,
      maxLoops: 3,
      // "Approved domains" are not listed in the sources.
      externalResources: 'allowListed',
      httpsOnly: true,
      forbiddenApis: ['localStorage', 'sessionStorage', 'geolocation'],
      sources: ['S27', 'S28', 'S29'],
    }),
  }),
  network({
    id: 9,
    name: 'Flashtalking (Innovid)',
    type: 'adServer',
    adTag: true,
    html5: true,
    packaging: rules({
      clickThrough: click({
        kind: 'flashtalkingApi',
        library: 'https://cdn.flashtalking.com/frameworks/js/api/v2/10/html5API.js',
        urlSetByNetwork: true,
        maxClickTags: 20,
      }),
      manifest: 'flashtalking-manifest.js',
      index: { name: 'manifestFilename', location: 'root' },
      externalResources: 'allowListed',
      allowedHosts: ['cdn.flashtalking.com'],
      sources: ['S30'],
    }),
  }),
  network({
    id: 10,
    name: 'The Trade Desk',
    type: 'dsp',
    adTag: true,
    html5: true,
    packaging: rules({
      clickThrough: click({ kind: 'clickTagQueryParam', variable: 'clickTag' }),
      maxZipBytes: 5 * MB,
      maxInitialLoadBytes: 300 * KB,
      maxFiles: 100,
      maxInitialRequests: 10,
      allowedExtensions: ['html', 'js', 'css', 'mp4', 'jpg', 'jpeg', 'gif', 'png', 'svg'],
      backupImage: 'outsideZipRequired',
      sources: ['S26'],
    }),
  }),
  network({
    id: 11,
    name: 'Yahoo DSP',
    type: 'dsp',
    adTag: true,
    html5: true,
    packaging: rules({
      clickThrough: click({ kind: 'clickTagVar', variable: 'clickTag' }),
      index: { name: 'index.html', location: 'root' },
      backupImage: 'insideZip',
      // The ad must work offline.
      externalResources: 'forbidden',
      includeUnminifiedSource: true,
      sources: ['S31'],
    }),
  }),
  network({
    id: 12,
    name: 'Meta (Facebook, Instagram)',
    type: 'social',
    adTag: false,
    // Display zips are not accepted; only playable app ads are HTML, so no HTML5 export targets Meta.
    html5: false,
    packaging: rules({
      clickThrough: click({ kind: 'fbPlayable' }),
      maxZipBytes: 5 * MB,
      maxFiles: 100,
      index: { name: 'index.html', location: 'root' },
      externalResources: 'forbidden',
      sources: ['S32'],
    }),
  }),
];

const BY_ID = new Map(AD_NETWORKS.map((n) => [n.id, n]));

export function adNetworkById(id: number): AdNetworkDef | undefined {
  return BY_ID.get(id);
}

/** The rules of `networkId`, or of the generic IAB profile when none is given. */
export function packagingFor(networkId: number | undefined): AdNetworkDef | undefined {
  return adNetworkById(networkId ?? DEFAULT_AD_NETWORK_ID);
}

/** IAB New Ad Portfolio initial and subload weights by fixed size [S18]. */
const IAB_WEIGHTS: Record<string, { initialBytes: number; subloadBytes: number }> = {
  '300x250': { initialBytes: 150 * KB, subloadBytes: 300 * KB },
  '728x90': { initialBytes: 150 * KB, subloadBytes: 300 * KB },
  '160x600': { initialBytes: 150 * KB, subloadBytes: 300 * KB },
  '970x250': { initialBytes: 250 * KB, subloadBytes: 500 * KB },
  '300x1050': { initialBytes: 250 * KB, subloadBytes: 500 * KB },
  '970x90': { initialBytes: 200 * KB, subloadBytes: 400 * KB },
  '320x50': { initialBytes: 50 * KB, subloadBytes: 100 * KB },
  '300x50': { initialBytes: 50 * KB, subloadBytes: 100 * KB },
  '120x60': { initialBytes: 50 * KB, subloadBytes: 100 * KB },
  // Interstitials.
  '640x1136': { initialBytes: 300 * KB, subloadBytes: 600 * KB },
  '750x1334': { initialBytes: 300 * KB, subloadBytes: 600 * KB },
  '1080x1920': { initialBytes: 300 * KB, subloadBytes: 600 * KB },
};

/** The IAB weights of a size, or null for a size the IAB table does not list. */
export function iabWeightFor(width: number, height: number) {
  return IAB_WEIGHTS[`${width}x${height}`] ?? null;
}
