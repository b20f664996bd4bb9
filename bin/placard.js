#!/usr/bin/env node
// The `placard` command. It runs the compiled service in dist/ (built by `npm install` through the prepare script).
import { existsSync } from 'node:fs';

const entry = new URL('../dist/main.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write('placard: dist/ is missing; run `npm install` (or `npm run build`) first\n');
  process.exit(2);
}
await import(entry.href);
