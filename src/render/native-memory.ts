// Imported before anything that loads @napi-rs/canvas (first import of main.ts and formats/pool.ts): Skia's allocator,
// mimalloc, reads its options from the environment once, when the native library loads, and @napi-rs/canvas decides
// then whether to scan the host's fonts (below).
//
// Why: mimalloc gives a freed block of its arenas back to the system only `purge_delay × arena_purge_mult` (10 ms × 10)
// after the free, and only when a later allocation, free or thread exit asks. A very large render's thread
// (large-render.ts) frees its gigabyte of pixels as it ends; when it ended within those 100 ms, nothing asked again and
// the process kept the gigabyte for good — the large-render-memory test failed so on loaded CI machines. With the
// multiplier at 0 an arena block goes back the moment it is freed. Small blocks (pages inside segments) keep their
// 10 ms delay, so the render hot path is unchanged: 300x250 JPGs on two threads ran 702–719 renders/s without it and
// 700–766 with it.
import { createRequire } from 'node:module';
import path from 'node:path';

/** mimalloc's option, as an environment variable; a value the operator set is kept. */
const ARENA_PURGE_MULT = 'MIMALLOC_ARENA_PURGE_MULT';

// A module's entry in the require cache exists before it runs (the ES module loader adds it while linking): `loaded`
// says whether it has run.
const skiaLoaded = () =>
  Object.values(createRequire(import.meta.url).cache).some(
    (module) => module?.loaded && module.id.includes(`${path.sep}@napi-rs${path.sep}canvas`),
  );

/**
 * Whether the setting reached mimalloc: false when @napi-rs/canvas was loaded before this module ran (an entry point
 * that imports it first), since the native library has read its options by then.
 */
export const nativeMemoryTuned: boolean = !skiaLoaded();

process.env[ARENA_PURGE_MULT] ??= '0';

// The host's fonts are never drawn (test/render/host-fonts.test.ts: output never depends on the machine), yet
// @napi-rs/canvas scans every installed font as it loads, in the CLI's process and in each render thread: 10–20 ms of
// a cold `placard render` with only DejaVu installed, far more on a designer's desktop with hundreds of fonts
// (issue 21). An operator's own setting is kept.
process.env.DISABLE_SYSTEM_FONTS_LOAD ??= '1';
