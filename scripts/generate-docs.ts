// Writes the generated documentation: docs/errors.md from the error catalogue in src/errors.ts.
import fs from 'node:fs';
import { renderErrorsMarkdown } from '../src/errors.js';

fs.mkdirSync('docs', { recursive: true });
fs.writeFileSync('docs/errors.md', renderErrorsMarkdown());
console.log('wrote docs/errors.md');
