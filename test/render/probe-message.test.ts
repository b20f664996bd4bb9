// Media errors in the user's words (issue 15): ffprobe's lines carried heap addresses and demuxer names.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { plainProbeMessage } from '../../src/render/media/media-probe.js';

test('ffprobe lines lose their heap addresses and say what is wrong with the file', () => {
  const cases: [string, RegExp][] = [
    ['[mov,mp4,m4a,3gp,3g2,mj2 @ 0x3932d200] moov atom not found', /^the file is incomplete/],
    ['the file: Invalid data found when processing input', /^the file is damaged/],
    ['[matroska,webm @ 0x55d0c1f2a2c0] File ended prematurely at pos. 1234 (0x4d2): End of file', /cut short/],
  ];
  for (const [line, expected] of cases) {
    const message = plainProbeMessage(line);
    assert.match(message, expected, line);
    assert.doesNotMatch(message, /0x[0-9a-f]{6,}|@|mov,mp4/i, line);
  }
  assert.equal(plainProbeMessage(''), 'the file cannot be read');
});
