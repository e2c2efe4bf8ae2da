/**
 * esbuild's settings for bundling the grader's entries (the GPU bundle, the student handout's
 * grader): one ESM build, the entries' shared code in chunks beside them, the native modules left
 * external, and a `require()` for the CommonJS dependencies inside the ESM output.
 */
import type { BuildOptions } from "esbuild";

/** File names of the entries' shared chunks. */
export const CHUNK_PREFIX = "chunk-";

export function graderBundleOptions(entryPoints: Record<string, string>, outDir: string): BuildOptions {
  return {
    entryPoints,
    outdir: outDir,
    outExtension: { ".js": ".mjs" },
    splitting: true,
    chunkNames: `${CHUNK_PREFIX}[hash]`,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    conditions: ["@tessera/source"],
    // Native, installed beside the bundle: esbuild (the grader bundles submissions), isolated-vm
    // (the sandbox). @resvg/resvg-js (PNG charts) is optional: without it PNGs are skipped with a warning.
    external: ["esbuild", "isolated-vm", "@resvg/resvg-js"],
    // CommonJS dependencies inside an ESM bundle need a require() (in every output file: chunks too).
    banner: { js: "import { createRequire as __tesseraCreateRequire } from 'node:module'; const require = __tesseraCreateRequire(import.meta.url);" },
    logLevel: "warning",
  };
}
