// The validator every HTML5 package goes through before it is delivered: the checks of adnetworks.md §4, one finding
// per broken rule, against the rules of the package's network (networks.ts). A `block` finding means the network
// refuses such a zip (the creative fails with it); `advice` means it may pass but publishers often refuse it (the
// creative completes and reports it in `warnings`). Pure over the files, so tests and the packager share it.
import { type AdNetworkDef, FORBIDDEN_EVERYWHERE, iabWeightFor } from './networks.js';

export interface Finding {
  /** Stable rule key, e.g. `zip-size`, `click-code`. */
  rule: string;
  severity: 'block' | 'advice';
  message: string;
}

export interface PackageFacts {
  /** Path in the zip → bytes. */
  files: ReadonlyMap<string, Uint8Array>;
  /** Bytes of the zip itself. */
  zipBytes: number;
  /** File name of the zip, without `.zip`. */
  zipName: string;
  width: number;
  height: number;
  /** Seconds one play lasts, and the plays (0: forever). */
  playSeconds: number;
  loops: number;
  /** The primary HTML the packager wrote. */
  index: string;
}

const KB = 1024;
const kb = (bytes: number) => `${Math.round(bytes / KB)} KB`;
const extensionOf = (name: string) => (/\.([^./]+)$/.exec(name)?.[1] ?? '').toLowerCase();
const TEXT_EXTENSIONS = new Set(['html', 'htm', 'css', 'js', 'json', 'svg', 'xml']);

/** Relative references of an HTML, CSS or SVG text: src/href/srcset attributes and url(). */
function referencesOf(text: string): string[] {
  const refs: string[] = [];
  for (const m of text.matchAll(/\s(?:src|href|poster)\s*=\s*"([^"]*)"/gi)) refs.push(m[1]);
  for (const m of text.matchAll(/\ssrcset\s*=\s*"([^"]*)"/gi)) {
    for (const part of m[1].split(',')) refs.push(part.trim().split(/\s+/)[0]);
  }
  for (const m of text.matchAll(/url\(\s*['"]?([^'")]+)['"]?\s*\)/gi)) refs.push(m[1]);
  return refs.filter(
    (ref) => ref && !ref.startsWith('#') && !ref.startsWith('data:') && !ref.startsWith('javascript:'),
  );
}

/** Absolute URLs anywhere in a text (scripts included: a library loaded by document.write counts too). */
function absoluteUrlsOf(text: string): string[] {
  return [...text.matchAll(/(?:https?:)?\/\/[A-Za-z0-9.-]+\.[A-Za-z]{2,}[^\s"'<>)]*/g)].map((m) => m[0]);
}

function hostOf(url: string): string {
  try {
    return new URL(url.startsWith('//') ? `https:${url}` : url).hostname;
  } catch {
    return '';
  }
}

export function validatePackage(network: AdNetworkDef, facts: PackageFacts): Finding[] {
  const rules = network.packaging;
  const findings: Finding[] = [];
  const block = (rule: string, message: string) => findings.push({ rule, severity: 'block', message });
  const advise = (rule: string, message: string) => findings.push({ rule, severity: 'advice', message });
  const names = [...facts.files.keys()];
  const text = (name: string) => Buffer.from(facts.files.get(name) ?? []).toString('utf8');

  // 1. Structure.
  for (const name of names) {
    if (extensionOf(name) === 'zip') block('nested-zip', `${name}: a zip inside the zip is refused`);
    if (name.startsWith('__MACOSX/') || name.endsWith('.DS_Store')) block('junk-file', `${name} must not be shipped`);
  }
  // 2. Entry point.
  const htmlAtRoot = names.filter((n) => !n.includes('/') && /\.html?$/i.test(n));
  if (!facts.files.has(facts.index)) block('index', `the primary HTML ${facts.index} is missing`);
  if (rules.index.name === 'index.html' && facts.index !== 'index.html') {
    block('index', `${network.name} needs the primary HTML to be index.html at the root, found ${facts.index}`);
  }
  if (htmlAtRoot.length !== 1) {
    block('index', `exactly one HTML file must sit at the root of the zip, found ${htmlAtRoot.length}`);
  }
  const html = text(facts.index);
  // 3. Document.
  const order = ['<!doctype html>', '<html', '<head', '</head>', '<body', '</body>', '</html>'].map((tag) =>
    html.toLowerCase().indexOf(tag),
  );
  if (order.some((at) => at < 0) || order.some((at, i) => i > 0 && at < order[i - 1])) {
    block('document', 'the HTML needs <!DOCTYPE html>, <html>, <head> and <body>, in that order');
  }
  if (!/<meta charset="utf-8">/i.test(html)) block('charset', 'the HTML must declare <meta charset="utf-8">');
  // 4. ad.size.
  const adSize = /<meta name="ad\.size" content="width=(\d+),height=(\d+)">/.exec(html);
  if (!adSize) {
    (rules.adSizeMeta === 'required' ? block : advise)('ad-size', `<meta name="ad.size"> is missing`);
  } else if (Number(adSize[1]) !== facts.width || Number(adSize[2]) !== facts.height) {
    block('ad-size', `ad.size says ${adSize[1]}x${adSize[2]}, the export is ${facts.width}x${facts.height}`);
  }
  // 5. Weight.
  const unzipped = names.reduce((sum, n) => sum + (facts.files.get(n)?.byteLength ?? 0), 0);
  if (rules.maxZipBytes !== null) {
    const measured =
      rules.weightMeasuredOn === 'unzipped'
        ? [['unzipped', unzipped] as const]
        : rules.weightMeasuredOn === 'zipped'
          ? [['zip', facts.zipBytes] as const]
          : [['zip', facts.zipBytes] as const, ['unzipped', unzipped] as const];
    for (const [what, bytes] of measured) {
      if (bytes > rules.maxZipBytes) {
        advise('weight', `${what} is ${kb(bytes)}, ${network.name} allows ${kb(rules.maxZipBytes)}`);
      }
    }
  }
  const iab = network.type === 'standard' ? iabWeightFor(facts.width, facts.height) : null;
  const initialCap = iab?.initialBytes ?? rules.maxInitialLoadBytes;
  if (initialCap !== null && facts.zipBytes > initialCap) {
    advise('initial-load', `zip is ${kb(facts.zipBytes)}, ${network.name} allows ${kb(initialCap)} at initial load`);
  }
  // 6. File count and requests.
  if (rules.maxFiles !== null && names.length > rules.maxFiles) {
    block('file-count', `the zip holds ${names.length} files, ${network.name} allows ${rules.maxFiles}`);
  }
  const requests = names.filter((n) => n !== facts.index && !n.startsWith('original/')).length + 1;
  if (rules.maxInitialRequests !== null && requests > rules.maxInitialRequests) {
    advise(
      'requests',
      `the ad loads ${requests} files, ${network.name} allows ${rules.maxInitialRequests} at initial load`,
    );
  }
  // 7. Extensions; 8. names.
  for (const name of names) {
    const ext = extensionOf(name);
    if (FORBIDDEN_EVERYWHERE.includes(ext)) block('extension', `${name}: .${ext} files are refused by every network`);
    else if (rules.allowedExtensions && !rules.allowedExtensions.includes(ext)) {
      block('extension', `${name}: ${network.name} accepts only ${rules.allowedExtensions.join(', ')}`);
    }
    const base = name.split('/').pop() ?? name;
    if (rules.fileNamePattern && !new RegExp(rules.fileNamePattern).test(base)) {
      block('file-name', `${name}: ${network.name} needs file names matching ${rules.fileNamePattern}`);
    }
  }
  if (rules.maxZipNameLength !== null && facts.zipName.length > rules.maxZipNameLength) {
    advise(
      'zip-name',
      `the zip name ${facts.zipName} has ${facts.zipName.length} characters, ${network.name} allows ${rules.maxZipNameLength}`,
    );
  }
  // 9. References.
  const referenced = new Set<string>([facts.index]);
  const library = network.packaging.clickThrough.library;
  const allowedHosts = new Set([...rules.allowedHosts, ...(library ? [hostOf(library)] : [])]);
  if (network.packaging.clickThrough.kind === 'sizmekEB') allowedHosts.add('secure-ds.serving-sys.com');
  // original/ holds the unminified source Yahoo asks for beside the build: a copy for people, never served.
  for (const name of names.filter((n) => TEXT_EXTENSIONS.has(extensionOf(n)) && !n.startsWith('original/'))) {
    const body = text(name);
    const dir = name.includes('/') ? name.slice(0, name.lastIndexOf('/') + 1) : '';
    // Script bodies build strings, not references (Adform's loader writes a <script src> with document.write).
    for (const ref of referencesOf(body.replace(/(<script[^>]*>)[\s\S]*?(<\/script>)/gi, '$1$2'))) {
      if (/^(?:https?:)?\/\//.test(ref)) continue;
      const target = (dir + ref.split(/[?#]/)[0]).replace(/^\.\//, '');
      referenced.add(target);
      if (!facts.files.has(target)) block('missing-file', `${name} refers to ${ref}, which is not in the zip`);
    }
    if (!/^(?:html?|css|js)$/.test(extensionOf(name))) continue; // SVG xmlns and manifest click URLs load nothing
    // The click script's URL is where a click goes, not a resource the ad loads.
    const loaded = body.replace(/<script id="clicktag"[^>]*>[\s\S]*?<\/script>/g, '');
    const scripts = [...loaded.matchAll(/<script[^>]*>([\s\S]*?)<\/script>/gi)].map((m) => m[1]);
    const urls = [
      ...referencesOf(loaded).filter((ref) => /^(?:https?:)?\/\//.test(ref)),
      ...(extensionOf(name) === 'js' ? [body] : scripts).flatMap(absoluteUrlsOf),
    ];
    for (const url of new Set(urls)) {
      const host = hostOf(url);
      if (rules.httpsOnly && url.startsWith('http://')) block('https', `${name} loads ${url} over plain http`);
      if (rules.externalResources === 'forbidden') {
        block('external', `${name} refers to ${url}; ${network.name} needs every resource inside the zip`);
      } else if (rules.externalResources === 'allowListed' && !allowedHosts.has(host)) {
        block('external', `${name} refers to ${host}, which ${network.name} does not allow`);
      }
    }
  }
  if (rules.unreferencedFilesForbidden) {
    for (const name of names) {
      if (!referenced.has(name) && !name.startsWith('manifest.') && !name.startsWith('original/')) {
        block('unreferenced', `${name} is not referenced; ${network.name} refuses unreferenced files`);
      }
    }
  }
  // 10. Click-through.
  checkClick(network, html, block);
  // 12. Manifest.
  checkManifest(network, facts, block);
  // 13. Forbidden APIs; 15. inline SVG.
  const code = names
    .filter((n) => /\.(?:html?|js)$/i.test(n))
    .map(text)
    .join('\n');
  const apiPatterns: Record<string, RegExp> = {
    localStorage: /\blocalStorage\b/,
    sessionStorage: /\bsessionStorage\b/,
    geolocation: /navigator\.geolocation/,
    audio: /<audio\b/i,
    video: /<video\b/i,
    iframe: /<iframe\b/i,
    autoplayAudio: /<(?:audio|video)\b(?![^>]*\bmuted\b)[^>]*\bautoplay\b/i,
  };
  for (const api of rules.forbiddenApis) {
    if (apiPatterns[api].test(code)) block('forbidden-api', `${network.name} refuses ads that use ${api}`);
  }
  if (rules.inlineSvgForbidden && /<svg\b/i.test(html)) {
    block('inline-svg', `${network.name} does not support inline <svg>; use standalone .svg files`);
  }
  // 14. Fonts.
  if (rules.fonts === 'googleFontsOnly' && names.some((n) => /\.(?:woff2?|ttf|otf|eot)$/i.test(n))) {
    block('fonts', `${network.name} allows Google Fonts only; convert the text to SVG (convertCustomFonts)`);
  }
  // 16. Animation length.
  const seconds = facts.loops === 0 ? Number.POSITIVE_INFINITY : facts.playSeconds * facts.loops;
  if (rules.maxAnimationSeconds !== null && seconds > rules.maxAnimationSeconds) {
    advise(
      'animation-length',
      `the animation runs ${Number.isFinite(seconds) ? `${seconds} s` : 'forever'}, ${network.name} allows ${rules.maxAnimationSeconds} s`,
    );
  }
  if (rules.maxLoops !== null && (facts.loops === 0 || facts.loops > rules.maxLoops)) {
    advise(
      'loops',
      `the animation plays ${facts.loops === 0 ? 'forever' : `${facts.loops} times`}, ${network.name} allows ${rules.maxLoops}`,
    );
  }
  return findings;
}

function checkClick(network: AdNetworkDef, html: string, block: (rule: string, message: string) => void): void {
  const click = network.packaging.clickThrough;
  const head = html.slice(0, Math.max(0, html.toLowerCase().indexOf('</head>')));
  const patterns: Record<string, RegExp> = {
    wholeAd: /[\s\S]*/,
    clickTagQueryParam: new RegExp(`var ${click.variable ?? 'clickTag'} = [\\s\\S]*location\\.search`),
    clickTagVar: new RegExp(`var ${click.variable ?? 'clickTag'} = `),
    adformDhtml: /Adform\.DHTML\.js[\s\S]*dhtml\.getVar\('clickTAG'/,
    appnexusLib: /appnexus-html5-lib[\s\S]*APPNEXUS\.getClickTag\(\)/,
    sizmekEB: /EBLoader\.js[\s\S]*EB\.clickthrough\(\)/,
    flashtalkingApi: /html5API\.js[\s\S]*applyClickTag\(/,
    fbPlayable: /FbPlayableAd\.onCTAClick\(\)/,
  };
  if (!patterns[click.kind].test(html)) {
    block('click-code', `the click-through code of ${network.name} (${click.kind}) is missing`);
  }
  if (click.keepUnminified || click.kind === 'clickTagVar' || click.kind === 'clickTagQueryParam') {
    const name = click.variable ?? 'clickTag';
    if (!new RegExp(`<script[^>]*>\\s*var ${name} = `).test(head)) {
      block('click-code', `var ${name} must be declared, unminified and global, in a <script> of <head>`);
    }
  }
  if (click.namePattern) {
    for (const m of html.matchAll(/var (clickTag\w*) = /gi)) {
      if (!new RegExp(click.namePattern).test(m[1])) {
        block('click-code', `click variable ${m[1]} does not match ${click.namePattern}`);
      }
    }
  }
  if (click.hardCodedUrlRejected && /window\.open\(\s*["']https?:/.test(html)) {
    block('click-code', `${network.name} rejects hard-coded click URLs; use the click variable`);
  }
}

function checkManifest(network: AdNetworkDef, facts: PackageFacts, block: (rule: string, message: string) => void) {
  const manifest = network.packaging.manifest;
  if (manifest === 'adform-manifest.json') {
    const bytes = facts.files.get('manifest.json');
    if (!bytes) return void block('manifest', 'Adform needs manifest.json at the root of the zip');
    let parsed: Record<string, unknown>;
    try {
      parsed = JSON.parse(Buffer.from(bytes).toString('utf8'));
    } catch {
      return void block('manifest', 'manifest.json is not valid JSON');
    }
    for (const key of ['version', 'title', 'width', 'height', 'clicktags', 'source']) {
      if (!(key in parsed)) block('manifest', `manifest.json lacks "${key}"`);
    }
    if (parsed.source !== facts.index) block('manifest', `manifest.json source must be ${facts.index}`);
    if (String(parsed.width) !== String(facts.width) || String(parsed.height) !== String(facts.height)) {
      block('manifest', 'manifest.json width and height must equal the export size');
    }
    const tags = (parsed.clicktags ?? {}) as Record<string, unknown>;
    const html = Buffer.from(facts.files.get(facts.index) ?? []).toString('utf8');
    for (const m of html.matchAll(/getVar\('(clickTAG\w*)'/g)) {
      if (!(m[1] in tags)) block('manifest', `manifest.json must list ${m[1]} (names are case-sensitive)`);
    }
  } else if (manifest === 'flashtalking-manifest.js') {
    const bytes = facts.files.get('manifest.js');
    if (!bytes) return void block('manifest', 'Flashtalking needs manifest.js at the root of the zip');
    const m = /^FT\.manifest\((\{[\s\S]*\})\);\s*$/.exec(Buffer.from(bytes).toString('utf8').trim());
    let parsed: Record<string, unknown> | null = null;
    try {
      parsed = m ? JSON.parse(m[1]) : null;
    } catch {}
    if (!parsed) return void block('manifest', 'manifest.js must be FT.manifest({...}); with a JSON object');
    if (parsed.filename !== facts.index) block('manifest', `manifest.js filename must be ${facts.index}`);
    if (parsed.width !== facts.width || parsed.height !== facts.height) {
      block('manifest', 'manifest.js width and height must equal the export size');
    }
    const count = Number(parsed.clickTagCount);
    const max = network.packaging.clickThrough.maxClickTags ?? 20;
    if (!Number.isInteger(count) || count < 1 || count > max) {
      block('manifest', `manifest.js clickTagCount must be 1..${max}`);
    }
  }
}
