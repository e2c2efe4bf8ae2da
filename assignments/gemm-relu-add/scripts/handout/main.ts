/**
 * pnpm handout <target-dir> [--force]
 *
 * Writes a handout a student can take anywhere (<target-dir> must be empty or absent unless
 * --force): the README, the student files and the grading manifest; @tessera/ir and
 * @tessera/schedule packed as tarballs; the grader bundled with esbuild; a package.json with
 * `grade`, `handin` and `scratch` scripts and a tsconfig of its own. `npm install && npm run
 * grade` there grades the starter. No solution, tests or instructor scripts.
 */
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { AssignmentCommandError, HANDOUT_GRADER_DIR, type HandoutVersions, checkHandoutTarget, writeHandout } from "../../src/index.js";
import { bundleGrader } from "./bundle-grader.js";
import { handoutTarballs, packHandoutPackages } from "./pack-tessera.js";
import { parseArgs, runCommandAsync } from "../run-command.js";

const USAGE = "usage: pnpm handout <target-dir> [--force]";
const REPO_ROOT = resolve(import.meta.dirname, "..", "..", "..", "..");

await runCommandAsync(USAGE, async () => {
  const { values, positionals } = parseArgs({ options: { force: { type: "boolean" } }, allowPositionals: true });
  const [target, ...extra] = positionals;
  if (target === undefined || extra.length > 0) throw new AssignmentCommandError("expected exactly one target folder");
  const options = { force: values.force === true };
  const dest = checkHandoutTarget(target, options);
  const tarballs = handoutTarballs();
  const files = writeHandout(dest, { tarballs, versions: pinnedVersions() }, options);
  const log = (line: string): void => void process.stdout.write(`${line}\n`);
  await packHandoutPackages(dest, log);
  log("bundling the grader …");
  const graderFiles = await bundleGrader(join(dest, HANDOUT_GRADER_DIR));
  const all = [...files, ...tarballs.map((t) => t.file), ...graderFiles.map((f) => `${HANDOUT_GRADER_DIR}/${f}`)];
  log(`wrote the handout to ${dest}:\n${all.map((f) => `  ${f}`).join("\n")}\nthen: cd ${dest} && npm install && npm run grade`);
});

/** The versions the repository grades and develops with. */
function pinnedVersions(): HandoutVersions {
  const deps = (path: string): Record<string, string> => {
    const manifest = JSON.parse(readFileSync(join(REPO_ROOT, path), "utf8")) as {
      dependencies?: Record<string, string>;
      optionalDependencies?: Record<string, string>;
      devDependencies?: Record<string, string>;
    };
    return { ...manifest.dependencies, ...manifest.optionalDependencies, ...manifest.devDependencies };
  };
  const grader = deps("apps/autograder/package.json");
  const assignment = deps("assignments/gemm-relu-add/package.json");
  const pick = (from: Record<string, string>, name: string): string => {
    const version = from[name];
    if (version === undefined) throw new Error(`no pinned version of ${name}`);
    return version;
  };
  // Every alias of isolated-vm the grader depends on (one per Node).
  const isolatedVm = Object.fromEntries(Object.entries(grader).filter(([, spec]) => spec.startsWith("npm:isolated-vm@")));
  if (Object.keys(isolatedVm).length === 0) throw new Error("no pinned version of isolated-vm (npm:isolated-vm@… aliases in apps/autograder/package.json)");
  return {
    esbuild: pick(grader, "esbuild"),
    isolatedVm,
    tsx: pick(assignment, "tsx"),
    typescript: pick(assignment, "typescript"),
  };
}
