// The click-through code of each network's pattern (adnetworks.md §1). The landing URL of the export settings is only
// ever the *default* value of the network's click variable (GAM rejects hard-coded targets; Flashtalking takes none),
// and the click script stays a separate, unminified, global <script> in <head> (Google's validators read it there).
import type { AdNetworkDef } from './networks.js';

export type UrlTarget = '_blank' | '_self' | '_top' | '_parent';

export interface ClickCode {
  /** <script> elements for <head>: libraries first, then the click variable. Never minified. */
  head: string;
  /** The element covering the ad that opens the landing page (empty when the network makes the ad clickable). */
  overlay: string;
  /** Script at the end of <body> (Flashtalking binds its click there). */
  tail: string;
}

/** Sizmek's loader; the catalogue leaves `library` empty because the host differs per Sizmek region. */
const EB_LOADER = 'https://secure-ds.serving-sys.com/BurstingScript/EBLoader.js';

/** A string as a JavaScript literal that is also safe inside <script> (no `</script>`, no U+2028). */
export function jsString(value: string): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

export const CLICK_SCRIPT_ID = 'clicktag';

const script = (body: string) => `<script id="${CLICK_SCRIPT_ID}" type="text/javascript">\n${body}\n</script>`;
const overlayAnchor = (href: string) =>
  `<a id="click-area" href="${href}" style="position:absolute;inset:0;display:block" aria-label="Open the advertiser's page"></a>`;

/** Networks whose click variable can be numbered (clickTag2, clickTag3 …) for the links of single elements. */
export function supportsElementLinks(network: AdNetworkDef): boolean {
  const kind = network.packaging.clickThrough.kind;
  return kind === 'clickTagVar' || kind === 'clickTagQueryParam';
}

/** The click area of an element with its own `link`: numbered click variable `index` (2, 3 …). */
export function elementLinkAnchor(network: AdNetworkDef, index: number, target: UrlTarget): string {
  const name = `${network.packaging.clickThrough.variable ?? 'clickTag'}${index}`;
  return `<a class="l" href="javascript:void(window.open(${name},'${target}'))" aria-label="Open the element's link"></a>`;
}

/**
 * `url` is the default of the click variable; `links` are the defaults of clickTag2, clickTag3 … (elements with their
 * own link, on networks where supportsElementLinks).
 */
export function clickCodeFor(network: AdNetworkDef, url: string, target: UrlTarget, links: string[] = []): ClickCode {
  const click = network.packaging.clickThrough;
  const library = click.library ?? (click.kind === 'sizmekEB' ? EB_LOADER : null);
  const lib = library ? `<script src="${library}"></script>\n` : '';
  const t = jsString(target);
  switch (click.kind) {
    case 'wholeAd':
      // Google Ads makes the whole ad clickable and needs no click code [S2].
      return { head: '', overlay: '', tail: '' };
    case 'clickTagQueryParam': {
      const name = click.variable ?? 'clickTag';
      const names = [name, ...links.map((_, i) => `${name}${i + 2}`)];
      const defaults = [url, ...links].map((value, i) => `var ${names[i]} = ${jsString(value)};`).join('\n');
      const reads = names
        .map(
          (n) =>
            `  match = new RegExp('[?&]${n}=([^&]*)').exec(window.location.search);\n  if (match) ${n} = decodeURIComponent(match[1]);`,
        )
        .join('\n');
      return {
        head: script(`${defaults}\n(function () {\n  var match;\n${reads}\n})();`),
        overlay: overlayAnchor(`javascript:void(window.open(${name},${t.replace(/"/g, "'")}))`),
        tail: '',
      };
    }
    case 'clickTagVar':
    case 'fbPlayable': {
      const name = click.variable ?? 'clickTag';
      const extra = links.map((link, i) => `\nvar ${name}${i + 2} = ${jsString(link)};`).join('');
      return {
        head: script(`var ${name} = ${jsString(url)};${extra}`),
        overlay: overlayAnchor(`javascript:void(window.open(${name},${t.replace(/"/g, "'")}))`),
        tail: '',
      };
    }
    case 'adformDhtml':
      return {
        head: `<script>document.write('<script src="'+(window.API_URL||'${library}?bv='+Math.random())+'"><\\/script>');</script>\n${script(`var clickTAGvalue = ${jsString(url)};\nvar landingPageTarget = ${t};`)}`,
        overlay: overlayAnchor(
          "javascript:void(window.open(window.dhtml?dhtml.getVar('clickTAG',clickTAGvalue):clickTAGvalue,window.dhtml?dhtml.getVar('landingPageTarget',landingPageTarget):landingPageTarget))",
        ),
        tail: '',
      };
    case 'appnexusLib':
      return {
        head: `${lib}${script(`var clickTag = ${jsString(url)};`)}`,
        overlay: overlayAnchor(
          `javascript:void(window.open((window.APPNEXUS&&APPNEXUS.getClickTag())||clickTag,${t.replace(/"/g, "'")}))`,
        ),
        tail: '',
      };
    case 'sizmekEB':
      return {
        head: `${lib}${script(`var clickTag = ${jsString(url)};`)}`,
        overlay: overlayAnchor(
          `javascript:void(window.EB?EB.clickthrough():window.open(clickTag,${t.replace(/"/g, "'")}))`,
        ),
        tail: '',
      };
    case 'flashtalkingApi':
      // The URL lives in the campaign [S30]; clickTag 1 is bound to the overlay once the API has loaded.
      return {
        head: lib,
        overlay: overlayAnchor('javascript:void(0)'),
        tail: script(
          "if (window.FT) { var myFT = new FT(); myFT.applyClickTag(document.getElementById('click-area'), 1); }",
        ),
      };
  }
}
