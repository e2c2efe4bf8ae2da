/**
 * The handout's own project files: a package.json that installs the @tessera packages from the
 * tarballs shipped beside it (never `workspace:`), runs the bundled grader and hand-in, and a
 * tsconfig that stands alone (no `extends` into the monorepo).
 */
import { ASSIGNMENT_NAME, ASSIGNMENT_TITLE } from "./metadata.js";

/** A @tessera package shipped as a tarball in the handout, e.g. `@tessera/ir` → `tarballs/tessera-ir-0.0.0.tgz`. */
export interface HandoutTarball {
  readonly name: string;
  /** Path relative to the handout root, "/"-separated. */
  readonly file: string;
}

/** Third-party versions, pinned to the ones the repository grades with. */
export interface HandoutVersions {
  readonly esbuild: string;
  /**
   * isolated-vm as the grader depends on it: one per Node (alias → "npm:isolated-vm@version", see
   * apps/autograder/src/sandbox/isolated-vm.ts); the student's install keeps the one for their Node.
   */
  readonly isolatedVm: Readonly<Record<string, string>>;
  readonly tsx: string;
  readonly typescript: string;
}

/** The Node versions the handout's grader runs on (those isolated-vm has a version for). */
export const HANDOUT_NODE_RANGE = "^20.19.0 || ^22.12.0 || ^24.0.0";

/** Where the bundled grader and hand-in live in the handout (see scripts/handout/bundle-grader.ts). */
export const HANDOUT_GRADER_DIR = "grader";
export const HANDOUT_TARBALL_DIR = "tarballs";

/** The tarball `pnpm pack` writes for a package: `@tessera/ir`@0.0.0 → `tessera-ir-0.0.0.tgz`. */
export function packedTarballName(name: string, version: string): string {
  return `${name.replace(/^@/, "").replace("/", "-")}-${version}.tgz`;
}

export function handoutPackageJson(tarballs: readonly HandoutTarball[], versions: HandoutVersions): string {
  const manifest = {
    name: `${ASSIGNMENT_NAME}-handout`,
    version: "1.0.0",
    private: true,
    description: ASSIGNMENT_TITLE,
    type: "module",
    engines: { node: HANDOUT_NODE_RANGE },
    scripts: {
      grade: `node ${HANDOUT_GRADER_DIR}/grade.mjs`,
      handin: `node ${HANDOUT_GRADER_DIR}/handin.mjs`,
      // `npm run scratch -- file.ts` (or `npx tsx file.ts`): the packages ship compiled JavaScript, no conditions needed.
      scratch: "tsx",
      typecheck: "tsc --noEmit",
    },
    dependencies: {
      ...Object.fromEntries(tarballs.map((t) => [t.name, `file:${t.file}`])),
      // The grader bundles each student file with esbuild and runs it in an isolated-vm isolate.
      esbuild: versions.esbuild,
    },
    // isolated-vm for each Node; npm installs the one that fits the student's and skips the others.
    optionalDependencies: versions.isolatedVm,
    devDependencies: { tsx: versions.tsx, typescript: versions.typescript },
    // npm ≥ 11.10 asks before running install scripts; isolated-vm compiles its addon in its own.
    allowScripts: { esbuild: true, "isolated-vm": true },
    pnpm: { onlyBuiltDependencies: ["esbuild", "isolated-vm"] },
  };
  return `${JSON.stringify(manifest, null, 2)}\n`;
}

/** Strict, standalone; the student files use no Node APIs, so no @types/node. */
export function handoutTsconfig(): string {
  const config = {
    compilerOptions: {
      target: "ES2022",
      module: "NodeNext",
      moduleResolution: "NodeNext",
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      types: [],
    },
    include: ["*.ts"],
  };
  return `${JSON.stringify(config, null, 2)}\n`;
}
