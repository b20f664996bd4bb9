#!/usr/bin/env node
// Run by `npm run build` after tsc: bundles the compiled `placard render` (dist/cli/render.js and every module of the
// project it imports, with TypeBox and a few small pure-JavaScript packages) into one CommonJS file,
// dist/cli/bundle/render.cjs, which dist/main.js runs through cli/bundle-loader.js (a V8 code cache) when it exists;
// then makes that cache with one small render.
// Why (issue 21): a cold render loaded ~710 modules, ~470 of them the project's own and TypeBox's ~370 files, and on
// Node 20 resolving and linking each ES module costs more than running it. Inlined as well: packages of many small
// files or of none a render can do without (image-size's 25 modules cost ~25 ms). Every other package stays external:
// several read data files next to their own code (linebreak, fontkit, the @fontsource fonts), load native addons
// (Skia, libvips) or require Node's modules in a way a bundle cannot follow (yazl), so they are required from
// node_modules as before.
// CommonJS, not an ES module: Node 20 can keep compiled code only for scripts (vm.Script), not for ES modules. What
// the renderer imports on first use (the HTML5 packager, the --changes schema, sharp) stays lazy: esbuild turns an
// import() into code run on first use, and an external one into a require(), which a cached script can still make
// (a dynamic import() from code out of a V8 code cache fails in Node 20: the build refuses to leave one).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const INLINED = new Set(['typebox', 'bidi-js', 'ajv', 'ajv-formats', 'lru-cache', 'ipaddr.js', 'image-size']);
const pkg = JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const external = Object.keys({ ...pkg.dependencies, ...pkg.devDependencies })
  .filter((name) => !INLINED.has(name))
  .flatMap((name) => [name, `${name}/*`]);

/**
 * Bundles `entry` (the compiled dist/cli/render.js, or src/cli/render.ts for a test) into `outdir`/render.cjs,
 * `outdir` emptied first; `outdir` must be inside the repository, where the external packages resolve.
 */
export async function bundleRender({ entry, outdir, sourcemap = true }) {
  fs.rmSync(outdir, { recursive: true, force: true });
  const outfile = path.join(outdir, 'render.cjs');
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external,
    // import() of an external package becomes a require() on first use (see above).
    supported: { 'dynamic-import': false },
    // Modules find their packages and files from import.meta.url (createRequire): the bundle's own URL, as in an ES
    // module bundle.
    define: { 'import.meta.url': '__bundleUrl' },
    banner: { js: 'var __bundleUrl = require("node:url").pathToFileURL(__filename).href;' },
    // Messages and logs name classes and functions (AppError, FontFileError): the bundle keeps their names.
    keepNames: true,
    // A cold render reads and decodes the whole file before V8 takes the cache (~2 MB: 30 ms on a slow 2-core
    // machine): without comments and blanks it is two thirds of that. Names stay, for stack traces.
    minifyWhitespace: true,
    minifySyntax: true,
    sourcemap,
    logLevel: 'warning',
  });
  const left = /\bimport\(/.exec(fs.readFileSync(outfile, 'utf8').replace(/\/\/.*$/gm, ''));
  if (left) throw new Error(`${outfile} still makes a dynamic import(), which fails in code from a V8 code cache`);
  return outfile;
}

/**
 * One render of a small document through dist/main.js, as `placard render` runs, which leaves the bundle's code
 * cache beside it: the first render after a build is then as fast as the next. A failure only costs that first render
 * its cache (it makes it itself), so it is reported and the build goes on.
 */
async function warmCodeCache() {
  const { DESIGN_DOCUMENT_EXAMPLE } = await import(pathToFileURL(fileOf('../dist/domain/design-document-doc.js')).href);
  const document = structuredClone(DESIGN_DOCUMENT_EXAMPLE);
  // No media: a build may have no network.
  document.sizes = document.sizes.slice(0, 1);
  for (const slide of document.sizes[0].slides) slide.elements = slide.elements.filter((e) => e.type !== 'image');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'placard-bundle-'));
  try {
    const input = path.join(dir, 'warm.json');
    fs.writeFileSync(input, JSON.stringify(document));
    const run = spawnSync(
      process.execPath,
      [fileOf('../bin/placard.js'), 'render', input, '--format', 'jpg', '--out', path.join(dir, 'warm.jpg')],
      { encoding: 'utf8', timeout: 120_000 },
    );
    if (run.status !== 0) process.stderr.write(`bundle-cli: no code cache made (the render failed): ${run.stderr}\n`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await bundleRender({ entry: fileOf('../dist/cli/render.js'), outdir: fileOf('../dist/cli/bundle') });
  await warmCodeCache();
}

function fileOf(relative) {
  return fileURLToPath(new URL(relative, import.meta.url));
}
