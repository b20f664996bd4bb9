// Writes the generated documentation: docs/errors.md from the error catalogue in src/errors.ts and
// docs/design-document.md from the design document and element schemas.
import fs from 'node:fs';
import { renderDesignDocumentMarkdown } from '../src/domain/design-document-doc.js';
import { renderErrorsMarkdown } from '../src/errors.js';

fs.mkdirSync('docs', { recursive: true });
fs.writeFileSync('docs/errors.md', renderErrorsMarkdown());
fs.writeFileSync('docs/design-document.md', renderDesignDocumentMarkdown());
console.log('wrote docs/errors.md and docs/design-document.md');
