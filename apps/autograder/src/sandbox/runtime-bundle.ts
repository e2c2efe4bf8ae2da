/**
 * The sandbox runtime: one CommonJS file holding the child's harness and the packages a submission
 * may import, `module.exports = { runHarness, ir, schedule }`. Each submission's bundle includes
 * it, so a student's file is the only thing transpiled per submission, and the grader needs no
 * node_modules at grading time (the device bundle ships this file prebuilt).
 *
 * This module imports nothing from the workspace (only Node and esbuild), so build scripts can
 * load it from source without the "@tessera/source" condition.
 */
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

/** The file name of a prebuilt runtime (beside the grader's bundle). */
export const SANDBOX_RUNTIME_FILE = "sandbox-runtime.cjs";
/** Environment variable naming a prebuilt runtime file. */
export const SANDBOX_RUNTIME_ENV = "TESSERA_SANDBOX_RUNTIME";

/** A submission's import of an allowed package → the runtime's property that holds it. */
export const RUNTIME_PACKAGES: Readonly<Record<string, "ir" | "schedule">> = {
  "@tessera/schedule": "schedule",
  "@tessera/ir": "ir",
};

const HERE = dirname(fileURLToPath(import.meta.url));

/** The harness source next to this module: `.ts` when run from source, `.js` from dist/. */
function harnessSource(): string | undefined {
  const ext = import.meta.url.endsWith(".ts") ? ".ts" : ".js";
  const path = join(HERE, "child", `harness${ext}`);
  return existsSync(path) ? path : undefined;
}

/** Builds the runtime from the workspace sources; returns the file's text. */
export async function buildSandboxRuntime(): Promise<string> {
  const harness = harnessSource();
  if (harness === undefined) {
    throw new Error(
      `cannot build the sandbox runtime: there is no harness source in ${join(HERE, "child")}; ` +
        `a bundled grader needs ${SANDBOX_RUNTIME_FILE} beside it or $${SANDBOX_RUNTIME_ENV} naming one (pnpm bundle:gpu writes it)`,
    );
  }
  const entry = [
    `export { runHarness } from ${JSON.stringify(harness)};`,
    ...Object.entries(RUNTIME_PACKAGES).map(([pkg, key]) => `export * as ${key} from ${JSON.stringify(pkg)};`),
  ].join("\n");
  const result = await build({
    stdin: { contents: entry, resolveDir: HERE, sourcefile: "sandbox-runtime-entry.ts", loader: "ts" },
    bundle: true,
    platform: "node",
    format: "cjs",
    target: "node20",
    conditions: ["@tessera/source"],
    banner: { js: "// Tessera sandbox runtime (generated): the grading harness, @tessera/ir and @tessera/schedule." },
    write: false,
    logLevel: "silent",
  }).catch((err: unknown) => {
    const errors = (err as { errors?: { text: string }[] }).errors;
    const detail = errors === undefined ? String(err) : errors.map((e) => e.text).join("; ");
    throw new Error(`cannot build the sandbox runtime: ${detail}`);
  });
  const output = result.outputFiles[0];
  if (output === undefined) throw new Error("cannot build the sandbox runtime: esbuild produced no output");
  return output.text;
}
