/**
 * `tessera-grade package-gradescope --out FILE.zip`: writes the autograder package to upload on
 * Gradescope (setup.sh, run_autograder, the repository under source/).
 */
import { existsSync, statSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, relative } from "node:path";
import { parseArgs } from "node:util";
import { type AssignmentBinding, DEFAULT_ASSIGNMENT, assignmentBinding } from "../assignment.js";
import { gradedFiles } from "../batch/grade-one.js";
import { buildGradescopePackage, packageZip } from "../gradescope-package/build-package.js";
import { findRepositoryRoot } from "../gradescope-package/repo-files.js";
import { describeChanges, uncommittedChanges } from "../gradescope-package/uncommitted-changes.js";
import { loadManifest } from "../manifest/index.js";
import { type GradeCommand, UsageError } from "./command.js";
import { packageLine } from "./specs.js";
import type { GradeIO } from "./io.js";
import { userPath } from "./options.js";

export const PACKAGE_OPTIONS_HELP = [
  "  --out FILE.zip     where the package is written",
  "  --allow-dirty      package the assignment folder even with uncommitted changes (refused by default: they would ship)",
  "",
  "The package installs the Node version running this command and the pnpm version of package.json's packageManager.",
].join("\n");

export interface PackageArgs {
  readonly out: string;
  /** Ship uncommitted changes of the assignment folder (with a warning) instead of refusing. */
  readonly allowDirty: boolean;
}

export function parsePackageArgs(args: readonly string[]): PackageArgs {
  const { values, positionals } = parseArgs({
    args: [...args],
    allowPositionals: true,
    strict: true,
    options: { out: { type: "string" }, "allow-dirty": { type: "boolean" } },
  });
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}" (give the package's path with --out FILE.zip)`);
  if (values.out === undefined) throw new UsageError("package-gradescope needs --out FILE.zip: where the package is written");
  const out = userPath(values.out);
  if (existsSync(out) && statSync(out).isDirectory()) throw new UsageError(`--out ${out} is a folder; give the zip file's path`);
  return { out, allowDirty: values["allow-dirty"] === true };
}

export async function runPackageCommand({ out, allowDirty }: PackageArgs, binding: AssignmentBinding, io: GradeIO): Promise<number> {
  try {
    const repoRoot = findRepositoryRoot(binding.root);
    const changes = await uncommittedChanges(repoRoot, binding.root);
    if (changes !== undefined && changes.length > 0) {
      const listed = `the assignment folder ${relative(repoRoot, binding.root)} has uncommitted changes, which the package would ship as they are on disk:\n${describeChanges(changes)}\n`;
      if (!allowDirty) {
        io.stderr(`tessera-grade package-gradescope: refusing to package: ${listed}Commit (or stash) them, or pass --allow-dirty to ship the working tree.\n`);
        return 1;
      }
      io.stderr(`tessera-grade package-gradescope: warning (--allow-dirty): ${listed}`);
    }
    const pkg = await buildGradescopePackage({
      repoRoot,
      starterDir: relative(repoRoot, binding.root),
      expectedFiles: gradedFiles(loadManifest(binding.manifestPath)),
      exclude: [out],
    });
    const zip = packageZip(pkg);
    await mkdir(dirname(out), { recursive: true });
    await writeFile(out, zip);
    io.stdout(
      [
        `Wrote ${out} (${(zip.length / (1024 * 1024)).toFixed(1)} MB): setup.sh, run_autograder and ${pkg.sourceFiles} repository files (listed by ${pkg.listedBy}) under source/.`,
        `On Gradescope it installs Node ${pkg.toolchain.node} and pnpm ${pkg.toolchain.pnpm}; upload it as the assignment's autograder (Configure Autograder → zip file, Ubuntu base image).`,
        "Gradescope's machines have no GPU: numerics run in the CPU simulator and the timing checks are not graded there.",
        "",
      ].join("\n"),
    );
    return 0;
  } catch (err) {
    io.stderr(`tessera-grade package-gradescope: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
}

export const packageCommand: GradeCommand = {
  ...packageLine,
  help: PACKAGE_OPTIONS_HELP,
  run: async (args, io) => runPackageCommand(parsePackageArgs(args), assignmentBinding(DEFAULT_ASSIGNMENT), io),
};
