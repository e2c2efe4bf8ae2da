/**
 * Bundles one student file together with the harness into a single CommonJS script the sandboxed
 * child runs. The student's files are copied into a private work directory first, so the child
 * needs to read nothing else. Imports are checked while bundling: a submission may import its own
 * files and `@tessera/schedule` / `@tessera/ir`, nothing else (no Node built-ins, no other
 * packages, nothing outside the submission such as the instructor solution).
 */
import { copyFile, mkdir, readdir, writeFile } from "node:fs/promises";
import { isBuiltin } from "node:module";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { type Message, type Plugin, build } from "esbuild";
import { SubmissionBuildError } from "./errors.js";
import { SANDBOX_PREAMBLE } from "./child/preamble.js";

/** Packages a submission may import. */
export const ALLOWED_PACKAGES: readonly string[] = ["@tessera/schedule", "@tessera/ir"];

const HERE = dirname(fileURLToPath(import.meta.url));
const SOURCE_EXT = import.meta.url.endsWith(".ts") ? ".ts" : ".js";
const HARNESS = join(HERE, "child", `harness${SOURCE_EXT}`);

export interface BundleRequest {
  /** The directory holding the student's files. */
  readonly submissionDir: string;
  /** The file to load, relative to `submissionDir` (e.g. `gemm_relu_add.ts`). */
  readonly file: string;
  /** An empty private directory: receives `submission/` and `bundle.cjs`. */
  readonly workDir: string;
}

/** Writes `workDir/bundle.cjs`; throws SubmissionBuildError with esbuild's diagnostics. */
export async function bundleSubmission(req: BundleRequest): Promise<string> {
  const privateCopy = join(req.workDir, "submission");
  await mkdir(privateCopy, { recursive: true });
  await copySourceFiles(req.submissionDir, privateCopy);
  const entry = [
    `import { runHarness } from ${JSON.stringify(HARNESS)};`,
    `void runHarness(${JSON.stringify(req.file)}, () => import(${JSON.stringify(`./submission/${req.file}`)}));`,
  ].join("\n");
  const outfile = join(req.workDir, "bundle.cjs");
  const result = await build({
    stdin: { contents: entry, resolveDir: req.workDir, sourcefile: "grader-entry.ts", loader: "ts" },
    bundle: true,
    platform: "node",
    format: "cjs",
    target: "node20",
    conditions: ["@tessera/source"],
    sourcemap: "inline",
    supported: { "dynamic-import": false },
    banner: { js: SANDBOX_PREAMBLE },
    outfile,
    write: false,
    logLevel: "silent",
    plugins: [submissionImports(privateCopy)],
  }).catch((err: unknown) => {
    const errors = (err as { errors?: Message[] }).errors;
    if (errors === undefined) throw err;
    throw new SubmissionBuildError(req.file, errors.map((m) => formatMessage(m, req.workDir)));
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
        if (args.pluginData === "internal" || !isInside(submissionDir, args.importer)) return undefined;
        const spec = args.path;
        if (isBuiltin(spec)) return { errors: [{ text: `imports Node's "${spec}" module; a submission may only import ${ALLOWED_PACKAGES.join(" and ")} and its own files` }] };
        if (ALLOWED_PACKAGES.includes(spec)) {
          const found = await b.resolve(spec, { resolveDir: HERE, kind: args.kind, pluginData: "internal" });
          return found.errors.length > 0 ? { errors: found.errors } : { path: found.path };
        }
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
