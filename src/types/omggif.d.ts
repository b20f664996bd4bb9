// omggif ships no types; the test suite reads GIFs with its decoder only.
declare module 'omggif' {
  export class GifReader {
    constructor(bytes: Uint8Array);
    width: number;
    height: number;
    numFrames(): number;
    loopCount(): number | null;
    frameInfo(index: number): { x: number; y: number; width: number; height: number; delay: number; disposal: number };
    decodeAndBlitFrameRGBA(index: number, pixels: Uint8Array): void;
  }
}
