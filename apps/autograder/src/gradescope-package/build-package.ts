/**
 * A Gradescope autograder package: setup.sh and run_autograder at the root (executable), the
 * repository under source/. Gradescope unpacks it into /autograder/source, runs setup.sh once
 * to build its image, and run_autograder for every submission.
 */
import { stat, readFile } from "node:fs/promises";
import { join } from "node:path";
import { type ZipEntry, writeZip } from "@tessera/course-kit";
import { listRepositoryFiles } from "./repo-files.js";
import { runAutograderScript, setupScript } from "./scripts.js";
import { type Toolchain, repositoryToolchain } from "./toolchain.js";

export interface GradescopePackageOptions {
  readonly repoRoot: string;
  /** The assignment's starter folder, relative to repoRoot (graded once by setup.sh). */
  readonly starterDir: string;
  /** The files the grader reads (run_autograder looks for them in the submission). */
  readonly expectedFiles: readonly string[];
  /** Default: the Node running this. */
  readonly nodeVersion?: string;
  /** Absolute paths never packaged (the zip being written, when it lies inside the repository). */
  readonly exclude?: readonly string[];
}

export interface GradescopePackage {
  readonly entries: readonly ZipEntry[];
  readonly toolchain: Toolchain;
  readonly sourceFiles: number;
  readonly listedBy: "git" | "walk";
}

/** The folder inside the package that holds the repository. */
export const SOURCE_PREFIX = "source/";

/** Without these the package cannot install (setup.sh runs pnpm install --frozen-lockfile). */
const REQUIRED_FILES = ["package.json", "pnpm-lock.yaml", "pnpm-workspace.yaml"];

export async function buildGradescopePackage(opts: GradescopePackageOptions): Promise<GradescopePackage> {
  const toolchain = await repositoryToolchain(opts.repoRoot, opts.nodeVersion);
  const { files, listedBy } = await listRepositoryFiles(opts.repoRoot, opts.exclude);
  const missing = REQUIRED_FILES.filter((f) => !files.includes(f));
  if (missing.length > 0)
    throw new Error(`${opts.repoRoot} lacks ${missing.join(", ")} (listed by ${listedBy}): the package could not install its dependencies`);
  const source: ZipEntry[] = [];
  for (const path of files) {
    const full = join(opts.repoRoot, path);
    // Executable bits travel with the files (.ci/run, scripts).
    const executable = ((await stat(full)).mode & 0o111) !== 0;
    source.push({ name: SOURCE_PREFIX + path, data: await readFile(full), mode: executable ? 0o755 : 0o644 });
  }
  const entries: ZipEntry[] = [
    { name: "setup.sh", data: Buffer.from(setupScript({ toolchain, starterDir: opts.starterDir })), mode: 0o755 },
    { name: "run_autograder", data: Buffer.from(runAutograderScript({ expectedFiles: opts.expectedFiles })), mode: 0o755 },
    ...source,
  ];
  return { entries, toolchain, sourceFiles: source.length, listedBy };
}

export function packageZip(pkg: GradescopePackage): Buffer {
  return writeZip(pkg.entries);
}
