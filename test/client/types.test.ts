// Type test of @placard/client: packages/client/test/usage.ts compiles (`tsc --noEmit`), and each line it marks with
// `@ts-expect-error` (a misspelled endpoint, a wrong body field, a wrong parameter type…) is a compile error of its
// own: with the directives removed, tsc reports an error on exactly those lines and nowhere else.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

const ROOT = path.resolve(import.meta.dirname, '../..');
const CLIENT = path.join(ROOT, 'packages/client');
const TSC = path.join(ROOT, 'node_modules/typescript/bin/tsc');

function tsc(project: string) {
  if (!fs.existsSync(TSC)) assert.fail('typescript is missing: run `npm install`');
  return spawnSync(process.execPath, [TSC, '--noEmit', '--pretty', 'false', '-p', project], { encoding: 'utf8' });
}

test('the usage file compiles, and every line marked @ts-expect-error fails', () => {
  const result = tsc(path.join(CLIENT, 'test/tsconfig.json'));
  assert.equal(result.status, 0, result.stdout + result.stderr);
});

test('without the directives, tsc reports exactly the marked lines', () => {
  const source = fs.readFileSync(path.join(CLIENT, 'test/usage.ts'), 'utf8').split('\n');
  const expected: number[] = [];
  const stripped = source.map((line, i) => {
    if (!line.includes('// @ts-expect-error')) return line;
    expected.push(i + 2); // the line after the directive; 1-based
    return '';
  });
  assert.ok(expected.length >= 8, 'the usage file marks at least eight wrong calls');
  const dir = fs.mkdtempSync(path.join(CLIENT, 'test/.tmp-'));
  try {
    fs.writeFileSync(path.join(dir, 'usage.ts'), stripped.join('\n').replaceAll("'../src/", "'../../src/"));
    fs.writeFileSync(
      path.join(dir, 'tsconfig.json'),
      JSON.stringify({
        extends: '../../tsconfig.json',
        compilerOptions: { noEmit: true, rootDir: '../..' },
        include: ['usage.ts'],
      }),
    );
    const result = tsc(path.join(dir, 'tsconfig.json'));
    assert.notEqual(result.status, 0);
    const lines = [...result.stdout.matchAll(/usage\.ts\((\d+),\d+\): error/g)].map((m) => Number(m[1]));
    assert.deepEqual(
      [...new Set(lines)].sort((a, b) => a - b),
      expected,
      result.stdout,
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
