// One dependency direction (docs/architecture.md, "Layers"): every import of every src/**/*.ts file, read with the
// TypeScript compiler's own parser (type-only imports and re-exports included: they couple as much as value imports),
// is checked against the layer order. A file may import its own layer or any layer below it, never one above.
// Run by `npm test`, hence by `npm run check`.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';

const SRC = path.resolve(import.meta.dirname, '../src');

/**
 * Top to bottom. Entry points (main, cli) start everything; app.ts and runtime.ts are the composition root that wires
 * storage, services, background work and routes; then the request path. Layers on one line share a rank and may import
 * each other (jobs and events: an export's finish records events, a delivery is a job).
 */
const LAYERS: readonly (readonly string[])[] = [
  ['main', 'cli'],
  ['app', 'runtime'],
  ['http'],
  ['services'],
  ['jobs', 'events'],
  ['formats'],
  ['elements'],
  ['render'],
  ['net'],
  ['storage'],
  ['domain'],
  ['errors', 'config', 'types', 'module-thread', 'lru-ttl'],
];

/**
 * Imports that run upward today and are known, each with why it is still there. The test fails on any upward import
 * not listed here AND on any listed one that no longer exists, so this list can only shrink.
 */
const KNOWN: Record<string, string> = {
  // The design document's layer union and the element-change rules are built from each kind's schema (element
  // kinds own their fields); moving those schemas below domain/ is a larger change than one issue.
  'domain/changes.ts -> elements/code/html-fragment.ts': 'element schemas compose the design document',
  'domain/changes.ts -> elements/code/schema.ts': 'element schemas compose the design document',
  'domain/changes.ts -> elements/common.ts': 'element schemas compose the design document',
  'domain/changes.ts -> elements/element-kind.ts': 'element schemas compose the design document',
  'domain/changes.ts -> elements/registry.ts': 'element schemas compose the design document',
  'domain/changes.ts -> elements/svg/schema.ts': 'element schemas compose the design document',
  'domain/changes.ts -> elements/text-style.ts': 'element schemas compose the design document',
  'domain/design-document-doc.ts -> elements/registry.ts': 'element schemas compose the design document',
  'domain/changes.schema.ts -> elements/element-kind.ts': 'element schemas compose the design document',
  'domain/design.schema.ts -> elements/common.ts': 'element schemas compose the design document',
  'domain/design.schema.ts -> elements/registry.ts': 'element schemas compose the design document',
  'domain/timeline.ts -> elements/common.ts': 'element schemas compose the design document',
  // A share link pasted as an image source is rewritten when the change is accepted, by the media intake's rules.
  'domain/changes.ts -> render/media/share-links.ts': 'share-link rewriting lives with the media intake',
};

function layerOf(file: string, root = SRC): string {
  const rel = path.relative(root, file).split(path.sep);
  return rel.length === 1 ? rel[0].replace(/\.ts$/, '') : rel[0];
}

function rankOf(layer: string): number {
  const rank = LAYERS.findIndex((names) => names.includes(layer));
  if (rank < 0) throw new Error(`src/${layer} is in no layer: add it to LAYERS in test/layers.test.ts`);
  return rank;
}

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** Relative module specifiers of a file: import/export declarations, `import('…')` types and dynamic imports. */
function specifiers(file: string): string[] {
  const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) {
      if (ts.isStringLiteral(node.moduleSpecifier)) found.push(node.moduleSpecifier.text);
    } else if (ts.isImportTypeNode(node)) {
      const arg = node.argument;
      if (ts.isLiteralTypeNode(arg) && ts.isStringLiteral(arg.literal)) found.push(arg.literal.text);
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      found.push(node.arguments[0].text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found.filter((s) => s.startsWith('.'));
}

/** Every import in src/ that points at a higher layer, as "from -> to" relative to src/. */
function upwardImports(root = SRC): string[] {
  const out: string[] = [];
  for (const file of sourceFiles(root)) {
    const from = layerOf(file, root);
    for (const spec of specifiers(file)) {
      const target = path.resolve(path.dirname(file), spec.replace(/\.js$/, '.ts'));
      const to = layerOf(target, root);
      if (rankOf(to) < rankOf(from)) {
        out.push(`${path.relative(root, file)} -> ${path.relative(root, target)}`.split(path.sep).join('/'));
      }
    }
  }
  return [...new Set(out)].sort();
}

test('every src/ folder is in the layer order', () => {
  for (const file of sourceFiles(SRC)) rankOf(layerOf(file));
});

test('no file imports from a layer above its own (beyond the known, shrinking list)', () => {
  const upward = upwardImports();
  const unknown = upward.filter((edge) => !(edge in KNOWN));
  assert.deepEqual(
    unknown,
    [],
    `imports that run upward (order: ${LAYERS.map((l) => l.join('/')).join(' → ')}):\n${unknown.join('\n')}`,
  );
  const gone = Object.keys(KNOWN).filter((edge) => !upward.includes(edge));
  assert.deepEqual(gone, [], 'these known upward imports are gone: remove them from KNOWN in test/layers.test.ts');
});

test('nothing below http/ imports from it beyond the export schemas (listed above)', () => {
  const intoHttp = upwardImports().filter((edge) => / -> http\//.test(edge) && !(edge in KNOWN));
  assert.deepEqual(intoHttp, []);
});

test('the check finds upward imports of every form (it can fail)', (t) => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'placard-layers-'));
  t.after(() => fs.rmSync(root, { recursive: true, force: true }));
  const write = (file: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), text);
  };
  write('http/types.ts', 'export interface Actor { id: number }\n');
  write('services/a.ts', "import type { Actor } from '../http/types.js';\nexport type A = Actor;\n");
  write('services/b.ts', "export { type Actor } from '../http/types.js';\n");
  write('jobs/c.ts', "export type C = import('../services/a.js').A;\n");
  write('domain/d.ts', "export const d = () => import('../render/e.js');\n");
  write('render/e.ts', "import { d } from '../domain/d.js';\nexport const e = d;\n");
  write('app.ts', "import './http/types.js';\n");
  assert.deepEqual(upwardImports(root), [
    'domain/d.ts -> render/e.ts',
    'jobs/c.ts -> services/a.ts',
    'services/a.ts -> http/types.ts',
    'services/b.ts -> http/types.ts',
  ]);
});
