// Issue 15: the README linked a file outside the repository (../shared/ARCHITECTURE.md), which a reader of the
// repository cannot open. Every relative link of the README and of docs/*.md names a file that is in the repository.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

const ROOT = process.cwd();
const PAGES = [
  'README.md',
  'CHANGELOG.md',
  ...fs
    .readdirSync('docs')
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** The targets of the markdown links and images of a page, without their anchors; web links left out. */
function relativeLinks(markdown: string): string[] {
  // Code blocks and code spans hold examples, not links.
  const prose = markdown.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  return [...prose.matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)]
    .map((m) => m[1].split('#')[0])
    .filter((target) => target !== '' && !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

test('every relative link of the README and the docs names a file inside the repository', () => {
  const broken: string[] = [];
  for (const page of PAGES) {
    for (const target of relativeLinks(fs.readFileSync(page, 'utf8'))) {
      const file = path.resolve(path.dirname(page), decodeURIComponent(target));
      const inside = !path.relative(ROOT, file).startsWith('..');
      if (!inside || !fs.existsSync(file))
        broken.push(`${page} → ${target}${inside ? '' : ' (outside the repository)'}`);
    }
  }
  assert.deepEqual(broken, []);
});

test('the README says which slide an MP4 ends on and which PNG shows it', () => {
  const readme = fs.readFileSync('README.md', 'utf8').replace(/\s+/g, ' ');
  assert.match(readme, /its last frame is the final state of the \*\*last\*\* slide/);
  assert.match(readme, /a PNG export writes one file per slide/);
});
