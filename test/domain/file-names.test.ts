// Windows device names (issue 15): a design named CON, NUL, COM1 or LPT1, with or without an extension, must not
// reach a zip name, a zip entry or a Content-Disposition unchanged: Windows cannot save a file by that name.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { exportFileName, safeFileStem } from '../../src/domain/export-plan.js';
import { contentDisposition, safeFileName } from '../../src/storage/blobs/content-disposition.js';

const DEVICES = ['CON', 'con', 'PRN', 'AUX', 'NUL', 'nul.txt', 'COM1', 'com9', 'LPT1', 'lpt3.zip', 'CON .png', 'COM¹'];

test('device names get a leading underscore in file stems, zip names and entries', () => {
  for (const name of DEVICES) {
    assert.equal(safeFileStem(name), `_${name}`, name);
    assert.match(`${safeFileStem(name)}.zip`, /^_/);
  }
  // Entries inside the zip carry the size after the stem, so they are not device names, but stay consistent.
  assert.equal(exportFileName('NUL', { width: 300, height: 250 }, undefined, 'png'), '_NUL-300x250.png');
});

test('device names get a leading underscore in download names', () => {
  for (const name of DEVICES) assert.equal(safeFileName(name), `_${name}`, name);
  assert.equal(safeFileName('CON.zip'), '_CON.zip');
  assert.match(contentDisposition('NUL.zip'), /^attachment; filename="_NUL.zip"; filename\*=UTF-8''_NUL.zip$/);
});

test('names that only start like a device are left alone', () => {
  for (const name of ['CONTACT', 'Console.zip', 'nullable', 'COM10', 'LPT', 'Com1x', 'AUXILIARY.png']) {
    assert.equal(safeFileStem(name), name);
    assert.equal(safeFileName(name), name);
  }
});
