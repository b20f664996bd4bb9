// The ad network catalogue is well-formed data: every entry passes its schema, ids are unique and stable, the
// generic IAB profile is the default, and rules from adnetworks.md that the packager relies on are present.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Value } from 'typebox/value';
import {
  AD_NETWORKS,
  AdNetworkDef,
  adNetworkById,
  DEFAULT_AD_NETWORK_ID,
  iabWeightFor,
  packagingFor,
} from '../../../src/formats/html5/networks.js';

describe('ad network catalogue', () => {
  test('every network passes the AdNetworkDef schema', () => {
    for (const n of AD_NETWORKS) {
      const errors = [...Value.Errors(AdNetworkDef, n)];
      assert.deepEqual(errors, [], n.name);
    }
  });

  test('ids are unique and numbered from 1; every pattern compiles', () => {
    assert.deepEqual(
      AD_NETWORKS.map((n) => n.id),
      AD_NETWORKS.map((_, i) => i + 1),
    );
    for (const n of AD_NETWORKS) {
      const { fileNamePattern } = n.packaging;
      const { namePattern } = n.packaging.clickThrough;
      for (const pattern of [fileNamePattern, namePattern]) if (pattern) new RegExp(pattern);
    }
  });

  test('the generic IAB profile is the default', () => {
    assert.equal(DEFAULT_AD_NETWORK_ID, 1);
    const generic = packagingFor(undefined);
    assert.equal(generic?.name, 'IAB standard (generic)');
    assert.deepEqual(generic?.packaging.index, { name: 'index.html', location: 'root' });
    assert.equal(generic?.packaging.clickThrough.kind, 'clickTagQueryParam');
    assert.equal(generic?.packaging.externalResources, 'forbidden');
    assert.equal(generic?.packaging.backupImage, 'outsideZip');
    assert.equal(packagingFor(10)?.name, 'The Trade Desk');
    assert.equal(packagingFor(99), undefined);
  });

  test('carries the rules of adnetworks.md the packager depends on', () => {
    const byName = (name: string) => AD_NETWORKS.find((n) => n.name === name)!.packaging;
    assert.equal(byName('Google Ads').maxZipBytes, 153_600);
    assert.equal(byName('Google Ads').maxFiles, 40);
    assert.equal(byName('Google Ad Manager').inlineSvgForbidden, true);
    assert.equal(byName('Google Ad Manager').clickThrough.namePattern, '^clickTag\\d*$');
    assert.ok(new RegExp(byName('Google Ad Manager').clickThrough.namePattern!).test('clickTag2'));
    assert.equal(byName('Adform').manifest, 'adform-manifest.json');
    assert.equal(byName('Adform').clickThrough.variable, 'clickTAG');
    assert.equal(byName('Flashtalking (Innovid)').manifest, 'flashtalking-manifest.js');
    assert.equal(byName('Flashtalking (Innovid)').clickThrough.maxClickTags, 20);
    assert.equal(byName('Xandr (Microsoft Invest)').index.name, 'index.html');
    assert.equal(byName('Campaign Manager 360').backupImage, 'outsideZip');
    assert.equal(byName('The Trade Desk').backupImage, 'outsideZipRequired');
    assert.equal(byName('Yahoo DSP').backupImage, 'insideZip');
    assert.equal(byName('Display & Video 360').clickThrough.targetForced, true);
    assert.equal(byName('Amazon Ads (DSP, Amazon Ad Server)').maxAnimationSeconds, 15);
    assert.equal(adNetworkById(12)?.html5, false);
  });

  test('IAB weights by size', () => {
    assert.deepEqual(iabWeightFor(300, 250), { initialBytes: 150 * 1024, subloadBytes: 300 * 1024 });
    assert.deepEqual(iabWeightFor(320, 50), { initialBytes: 50 * 1024, subloadBytes: 100 * 1024 });
    assert.equal(iabWeightFor(301, 250), null);
  });
});
