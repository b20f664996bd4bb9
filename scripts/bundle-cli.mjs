#!/usr/bin/env node
// Run by `npm run build` after tsc: bundles the compiled `placard render` (dist/cli/render.js and every module of the
// project it imports, with TypeBox) into dist/cli/bundle/render.js, which dist/main.js imports when it exists. What
// the renderer imports on first use (the HTML5 packager, the --changes schema) goes into chunks of its own, so that
// it stays lazy: an ES module bundle must import external packages at its top.
// Why (issue 21): a cold render loaded ~710 modules, ~470 of them the project's own and TypeBox's ~370 files, and on
// Node 20 resolving and linking each ES module costs more than running it. Every other package stays external:
// several read data files next to their own code (linebreak, fontkit, the @fontsource fonts) or load native addons
// (Skia, libvips), so they are imported from node_modules as before.
import fs from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const INLINED = new Set(['typebox']);
const pkg = JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const external = Object.keys({ ...pkg.dependencies, ...pkg.devDependencies })
  .filter((name) => !INLINED.has(name))
  .flatMap((name) => [name, `${name}/*`]);

/**
 * Bundles `entry` (the compiled dist/cli/render.js, or src/cli/render.ts for a test) into `outdir`, emptied first;
 * `outdir` must be inside the repository, where the external packages resolve.
 */
export async function bundleRender({ entry, outdir, sourcemap = true }) {
  fs.rmSync(outdir, { recursive: true, force: true });
  await build({
    entryPoints: [entry],
    outdir,
    bundle: true,
    splitting: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    external,
    // Messages and logs name classes and functions (AppError, FontFileError): the bundle keeps their names.
    keepNames: true,
    sourcemap,
    logLevel: 'warning',
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await bundleRender({ entry: fileOf('../dist/cli/render.js'), outdir: fileOf('../dist/cli/bundle') });
}

function fileOf(relative) {
  return fileURLToPath(new URL(relative, import.meta.url));
}
