// sharp (libvips) is loaded on first use: a cold `placard render` of a JPG without images never needs it, and loading
// it at import cost every such start about 40 ms (issue 21). A service has it loaded from the start anyway
// (formats/pool.ts), so there this is a cached promise.
import type Sharp from 'sharp';

let loaded: Promise<typeof Sharp> | null = null;

export function loadSharp(): Promise<typeof Sharp> {
  loaded ??= import('sharp').then((module) => module.default);
  return loaded;
}
