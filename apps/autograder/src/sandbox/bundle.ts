/**
 * Bundles one student file (and the files it imports) into a single script that the sandbox host
 * runs inside a V8 isolate (host/host.ts), right after the sandbox runtime (the harness and the
 * packages a submission may use, prebuilt: see runtime-source.ts), which it finds on the global.
 * Running it prepares the isolate and defines the harness; the student's module is imported only
 * when the host asks the harness to load it. The student's files are copied into a private work directory first, so the child
 * needs to read nothing else. Imports are checked while bundling: a submission may import its own
 * files and `@tessera/schedule` / `@tessera/ir`, nothing else (no Node built-ins, no other
 * packages, nothing outside the submission such as the instructor solution). The allowed packages
 * resolve to the runtime's own copies, so student code and harness share one module instance
 * (the harness's `instanceof BlockRV` holds for the student's handles).
 */
import { copyFile, mkdir, readdir, writeFile } from "node:fs/promises";
import { isBuiltin } from "node:module";
import { join, relative, resolve, sep } from "node:path";
import { type Message, type Plugin, build } from "esbuild";
import { SubmissionBuildError } from "./errors.js";
import { HARNESS_GLOBAL, RUNTIME_GLOBAL } from "./isolate/globals.js";
import { RUNTIME_PACKAGES } from "./runtime-bundle.js";
import { sandboxRuntime } from "./runtime-source.js";

/** Packages a submission may import. */
export const ALLOWED_PACKAGES: readonly string[] = Object.keys(RUNTIME_PACKAGES);

/** esbuild namespace of the modules that are not files: the runtime and the allowed packages' re-exports. */
const VIRTUAL = "tessera-sandbox";
/** How the entry and the re-exports name the runtime (a submission cannot: see submissionImports). */
const RUNTIME_SPECIFIER = "tessera-sandbox:runtime";

export interface BundleRequest {
  /** The directory holding the student's files. */
  readonly submissionDir: string;
  /** The file to load, relative to `submissionDir` (e.g. `schedule.ts`). */
  readonly file: string;
  /** An empty private directory: receives `submission/` and `bundle.js`. */
  readonly workDir: string;
}

/** The bundle's file name in the work directory; stack frames of the isolate name it. */
export const BUNDLE_FILE = "bundle.js";
/** The sandbox runtime's file name in the work directory (the host runs it before the bundle). */
export const RUNTIME_FILE = "runtime.js";

/** Writes `workDir/bundle.js` and `workDir/runtime.js`; throws SubmissionBuildError with esbuild's diagnostics. */
export async function bundleSubmission(req: BundleRequest): Promise<string> {
  const privateCopy = join(req.workDir, "submission");
  await mkdir(privateCopy, { recursive: true });
  await copySourceFiles(req.submissionDir, privateCopy);
  const runtime = await sandboxRuntime();
  await writeFile(join(req.workDir, RUNTIME_FILE), runtime.code);
  // The environment is prepared before the student's module is even imported (that import is lazy).
  const entry = [
    `import * as runtime from ${JSON.stringify(RUNTIME_SPECIFIER)};`,
    `runtime.prepareIsolate([runtime.ir, runtime.schedule]);`,
    `globalThis[${JSON.stringify(HARNESS_GLOBAL)}] = runtime.createHarness(${JSON.stringify(req.file)}, () => import(${JSON.stringify(`./submission/${req.file}`)}));`,
  ].join("\n");
  const outfile = join(req.workDir, BUNDLE_FILE);
  const result = await build({
    stdin: { contents: entry, resolveDir: req.workDir, sourcefile: "grader-entry.ts", loader: "ts" },
    // Paths in diagnostics and source maps are relative to the work directory, wherever the grader runs.
    absWorkingDir: req.workDir,
    bundle: true,
    platform: "neutral",
    format: "iife",
    target: "node20",
    sourcemap: "inline",
    supported: { "dynamic-import": false },
    // The student's TypeScript modules are strict, as they would be under Node.
    banner: { js: '"use strict";' },
    outfile,
    write: false,
    logLevel: "silent",
    plugins: [submissionImports(privateCopy), sandboxModules()],
  }).catch((err: unknown) => {
    const errors = (err as { errors?: Message[] }).errors;
    if (errors === undefined) throw err;
    throw new SubmissionBuildError(
      req.file,
      errors.map((m) => formatMessage(m, req.workDir)),
    );
  });
  const output = result.outputFiles[0];
  if (output === undefined) throw new SubmissionBuildError(req.file, ["the bundler produced no output"]);
  await writeFile(outfile, output.contents);
  return outfile;
}

/**
 * Only the submission's top-level source files are copied: sub-folders (an instructor's
 * `solution/` next to the starter files, `node_modules`) stay out of the sandbox's reach.
 */
async function copySourceFiles(from: string, to: string): Promise<void> {
  for (const entry of await readdir(from, { withFileTypes: true })) {
    if (entry.isFile() && /\.(ts|mts|js|mjs|json)$/.test(entry.name)) await copyFile(join(from, entry.name), join(to, entry.name));
  }
}

function formatMessage(m: Message, workDir: string): string {
  const loc = m.location;
  if (loc === null) return m.text;
  // loc.file is relative to esbuild's absWorkingDir, the work directory.
  const file = relative(join(workDir, "submission"), resolve(workDir, loc.file));
  return `${file}:${loc.line}:${loc.column + 1}: ${m.text}${loc.lineText ? `\n      ${loc.lineText.trim()}` : ""}`;
}

function isInside(dir: string, path: string): boolean {
  const rel = relative(dir, path);
  return rel === "" || (!rel.startsWith("..") && !rel.startsWith(sep) && !/^[a-zA-Z]:/.test(rel));
}

/** Resolution rules for imports made by the student's files. */
function submissionImports(submissionDir: string): Plugin {
  return {
    name: "tessera-submission-imports",
    setup(b) {
      b.onResolve({ filter: /.*/ }, async (args) => {
        if (args.pluginData === "internal" || args.namespace !== "file" || !isInside(submissionDir, args.importer)) return undefined;
        const spec = args.path;
        if (isBuiltin(spec))
          return { errors: [{ text: `imports Node's "${spec}" module; a submission may only import ${ALLOWED_PACKAGES.join(" and ")} and its own files` }] };
        if (ALLOWED_PACKAGES.includes(spec)) return { path: spec, namespace: VIRTUAL };
        if (spec.startsWith(".") || spec.startsWith("/")) {
          if (!isInside(submissionDir, resolve(args.resolveDir, spec))) return { errors: [{ text: `imports "${spec}", which is outside the submission` }] };
          const found = await b.resolve(spec, { resolveDir: args.resolveDir, kind: args.kind, pluginData: "internal" });
          if (found.errors.length > 0) return { errors: found.errors };
          if (!isInside(submissionDir, found.path)) return { errors: [{ text: `imports "${spec}", which is outside the submission` }] };
          return { path: found.path };
        }
        return { errors: [{ text: `imports the package "${spec}"; a submission may only import ${ALLOWED_PACKAGES.join(" and ")} and its own files` }] };
      });
    },
  };
}

/**
 * The modules that are not files: the runtime (taken from the global where the runtime script left
 * it) and one re-export per allowed package. Runs after submissionImports, so a submission cannot
 * name the runtime.
 */
function sandboxModules(): Plugin {
  return {
    name: "tessera-sandbox-modules",
    setup(b) {
      b.onResolve({ filter: /.*/ }, (args) => (args.path === RUNTIME_SPECIFIER ? { path: "runtime", namespace: VIRTUAL } : undefined));
      b.onLoad({ filter: /.*/, namespace: VIRTUAL }, (args) => {
        if (args.path === "runtime") return { contents: `module.exports = globalThis[${JSON.stringify(RUNTIME_GLOBAL)}];`, loader: "js" };
        const key = RUNTIME_PACKAGES[args.path];
        if (key === undefined) return { errors: [{ text: `no sandbox module named "${args.path}"` }] };
        return { contents: `module.exports = require(${JSON.stringify(RUNTIME_SPECIFIER)}).${key};`, loader: "js" };
      });
    },
  };
}
