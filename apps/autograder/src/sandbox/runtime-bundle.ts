/**
 * The sandbox runtime: one CommonJS file holding what runs inside the isolate besides the student's
 * code (the harness, the isolate's environment) and the packages a submission may import,
 * `module.exports = { createHarness, prepareIsolate, ir, schedule }`. Each submission's bundle includes
 * it, so a student's file is the only thing transpiled per submission, and the grader needs no
 * node_modules at grading time (the device bundle ships this file prebuilt).
 *
 * This module imports nothing from the workspace (only Node, esbuild and a type of its own folder),
 * so build scripts can load it from source without the "@tessera/source" condition.
 */
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { type BuildOptions, build } from "esbuild";
import type { BuiltText } from "./build-cache.js";

/** The file name of a prebuilt runtime (beside the grader's bundle). */
export const SANDBOX_RUNTIME_FILE = "sandbox-runtime.cjs";
/** The file name of a prebuilt sandbox host (beside the grader's bundle). */
export const SANDBOX_HOST_FILE = "sandbox-host.cjs";
/** Environment variable naming a prebuilt runtime file. */
export const SANDBOX_RUNTIME_ENV = "TESSERA_SANDBOX_RUNTIME";

/** A submission's import of an allowed package → the runtime's property that holds it. */
export const RUNTIME_PACKAGES: Readonly<Record<string, "ir" | "schedule">> = {
  "@tessera/schedule": "schedule",
  "@tessera/ir": "ir",
};

const HERE = dirname(fileURLToPath(import.meta.url));

/** A source of the isolate's code next to this module: `.ts` when run from source, `.js` from dist/. */
function isolateSource(name: string): string | undefined {
  const ext = import.meta.url.endsWith(".ts") ? ".ts" : ".js";
  const path = join(HERE, "isolate", `${name}${ext}`);
  return existsSync(path) ? path : undefined;
}

/** Builds the runtime from the workspace sources; returns the file's text. */
export async function buildSandboxRuntime(): Promise<string> {
  return (await buildSandboxRuntimeWithInputs()).text;
}

/** Builds the sandbox host; returns its text. */
export async function buildSandboxHost(): Promise<string> {
  return (await buildSandboxHostWithInputs()).text;
}

/** The runtime's text and the files it was built from. */
export async function buildSandboxRuntimeWithInputs(): Promise<BuiltText> {
  const harness = isolateSource("harness");
  const environment = isolateSource("environment");
  if (harness === undefined || environment === undefined) {
    throw new Error(
      `cannot build the sandbox runtime: there is no harness source in ${join(HERE, "isolate")}; ` +
        `a bundled grader needs ${SANDBOX_RUNTIME_FILE} beside it or $${SANDBOX_RUNTIME_ENV} naming one (pnpm bundle:gpu writes it)`,
    );
  }
  const entry = [
    `export { createHarness } from ${JSON.stringify(harness)};`,
    `export { prepareIsolate } from ${JSON.stringify(environment)};`,
    ...Object.entries(RUNTIME_PACKAGES).map(([pkg, key]) => `export * as ${key} from ${JSON.stringify(pkg)};`),
  ].join("\n");
  return buildToText("the sandbox runtime", {
    stdin: { contents: entry, resolveDir: HERE, sourcefile: "sandbox-runtime-entry.ts", loader: "ts" },
    bundle: true,
    // The isolate has no Node: neither the packages nor the harness may need it.
    platform: "neutral",
    mainFields: ["module", "main"],
    format: "cjs",
    target: "node20",
    conditions: ["@tessera/source"],
    banner: { js: "// Tessera sandbox runtime (generated): the grading harness, @tessera/ir and @tessera/schedule." },
  });
}

/** The sandbox host (host/host.ts, run by plain Node in the sandbox's child process): its text and the files it was built from. */
export async function buildSandboxHostWithInputs(): Promise<BuiltText> {
  const ext = import.meta.url.endsWith(".ts") ? ".ts" : ".js";
  const entry = join(HERE, "host", `host${ext}`);
  if (!existsSync(entry)) throw new Error(`cannot build the sandbox host: ${entry} does not exist; a bundled grader needs ${SANDBOX_HOST_FILE} beside it`);
  return buildToText("the sandbox host", {
    entryPoints: [entry],
    bundle: true,
    platform: "node",
    format: "cjs",
    target: "node20",
    // isolated-vm is a native module: the host loads it by the path the grader passes.
    external: ["isolated-vm"],
    banner: { js: "// Tessera sandbox host (generated): runs a submission's bundle in an isolated-vm isolate." },
  });
}

/** One esbuild bundle, in memory; an Error names `what` and esbuild's messages. */
async function buildToText(what: string, options: BuildOptions): Promise<BuiltText> {
  const result = await build({ ...options, write: false, logLevel: "silent", metafile: true }).catch((err: unknown) => {
    const errors = (err as { errors?: { text: string }[] }).errors;
    throw new Error(`cannot build ${what}: ${errors === undefined ? String(err) : errors.map((e) => e.text).join("; ")}`);
  });
  const output = result.outputFiles[0];
  if (output === undefined) throw new Error(`cannot build ${what}: esbuild produced no output`);
  const root = options.absWorkingDir ?? process.cwd();
  const read = Object.keys(result.metafile.inputs)
    .filter((p) => !p.startsWith("<stdin>"))
    .map((p) => resolve(root, p));
  return { text: output.text, inputs: [...read, fileURLToPath(import.meta.url), ESBUILD_PACKAGE] };
}

/** esbuild's package.json: another esbuild may bundle differently. */
const ESBUILD_PACKAGE = createRequire(import.meta.url).resolve("esbuild/package.json");
