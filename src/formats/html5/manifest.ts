// The manifests some networks require at the root of the zip (adnetworks.md §1): Adform's manifest.json [S23] and
// Flashtalking's manifest.js [S30]. Their shapes follow those documents field for field.
import type { AdNetworkDef } from './networks.js';

export interface ManifestInput {
  title: string;
  width: number;
  height: number;
  index: string;
  clickUrl: string;
}

export function manifestFiles(network: AdNetworkDef, input: ManifestInput): [string, Buffer][] {
  switch (network.packaging.manifest) {
    case 'adform-manifest.json':
      return [
        [
          'manifest.json',
          Buffer.from(
            `${JSON.stringify(
              {
                version: '1.0',
                title: input.title,
                description: '',
                width: String(input.width),
                height: String(input.height),
                events: { enabled: 1, list: {} },
                clicktags: { clickTAG: input.clickUrl },
                source: input.index,
              },
              null,
              2,
            )}\n`,
          ),
        ],
      ];
    case 'flashtalking-manifest.js':
      return [
        [
          'manifest.js',
          Buffer.from(
            `FT.manifest(${JSON.stringify({ filename: input.index, width: input.width, height: input.height, clickTagCount: 1 })});\n`,
          ),
        ],
      ];
    default:
      return [];
  }
}
