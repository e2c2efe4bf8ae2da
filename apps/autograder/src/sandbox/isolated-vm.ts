/**
 * Which isolated-vm the sandbox host loads. Its native addon is built for one Node ABI, and no
 * release covers every Node the grader supports: 5.0.4 builds on Node 20 and 22 but not on 24;
 * 6.2.0 needs Node ≥ 22 and ships prebuilt addons for 22 and 24 (nothing compiles there). So
 * @tessera/autograder depends on both, as optional dependencies under aliases (isolated-vm-5,
 * isolated-vm-6), and an install keeps the one for its Node: 6.2.0 declares Node ≥ 22, and the
 * repository's .pnpmfile.cjs narrows 5.0.4 to Node 20 (so that pnpm neither compiles it where
 * 6.2.0 serves nor fails to on 24). npm, which does not read that file, also builds 5.0.4 on 22
 * (unused there) and skips it, after a failed build, on 24.
 *
 * The grader hands the host the addon itself (the .node file): the host then reads nothing of the
 * package but that file (6.x's own loader would need node-gyp-build, outside its folder).
 */
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

/** The isolated-vm package (an alias in the autograder's optionalDependencies) each supported Node major loads. */
export const ISOLATED_VM_BY_NODE_MAJOR: Readonly<Record<number, string>> = { 20: "isolated-vm-5", 22: "isolated-vm-6", 24: "isolated-vm-6" };

export interface IsolatedVmAddon {
  /** The alias it is installed under, e.g. "isolated-vm-6". */
  readonly packageName: string;
  /** isolated-vm's version, e.g. "6.2.0". */
  readonly version: string;
  /** The package's folder. */
  readonly dir: string;
  /** Absolute path of its native addon for this Node (exports `{ ivm }`). */
  readonly addon: string;
}

/**
 * Finds the isolated-vm addon for `nodeVersion` (this process's), resolving the package from
 * `from` (a file URL or path: the module resolution of the grader, bundled or not). Throws an Error
 * that says what to do when this Node has none.
 */
export function findIsolatedVmAddon(from: string = import.meta.url, nodeVersion: string = process.versions.node): IsolatedVmAddon {
  const major = Number(nodeVersion.split(".")[0]);
  const packageName = ISOLATED_VM_BY_NODE_MAJOR[major];
  const supported = Object.keys(ISOLATED_VM_BY_NODE_MAJOR).join(", ");
  if (packageName === undefined) {
    throw new Error(`the grading sandbox (isolated-vm) has no version for Node ${nodeVersion}: the grader runs on Node ${supported}`);
  }
  let manifestPath: string;
  try {
    manifestPath = createRequire(from).resolve(`${packageName}/package.json`);
  } catch {
    throw new Error(
      `${packageName} (isolated-vm for Node ${major}) is not installed: the dependencies were installed with another Node; ` +
        `install them again with Node ${nodeVersion} (pnpm install, or npm install in a handout)`,
    );
  }
  const dir = dirname(manifestPath);
  const manifest = JSON.parse(readFileSync(manifestPath, "utf8")) as { version?: string; dependencies?: Record<string, string> };
  const version = manifest.version ?? "(unknown version)";
  const fail = (why: string): never => {
    throw new Error(
      `isolated-vm ${version} (${packageName}, ${dir}) has no native addon for Node ${nodeVersion}: ${why}; ` +
        `install the dependencies again with this Node (where it compiles, it needs g++, make and python3)`,
    );
  };
  // Built from source at install (5.x, and the GPU bundle's copy of either): out/isolated_vm.node.
  const built = join(dir, "out", "isolated_vm.node");
  if (existsSync(built)) return { packageName, version, dir, addon: built };
  // 6.x and later: a prebuilt addon under prebuilds/, or build/Release when none fitted, found as
  // its own loader finds it.
  if (manifest.dependencies?.["node-gyp-build"] === undefined) return fail(`${built} does not exist`);
  let addon: string | undefined;
  try {
    const nodeGypBuild = createRequire(manifestPath)("node-gyp-build") as { path(dir: string): string };
    addon = nodeGypBuild.path(dir);
  } catch (err) {
    // node-gyp-build's message goes on with the folder it looked in, named above already.
    return fail((err instanceof Error ? err.message : String(err)).split("\n")[0]!.trim());
  }
  return { packageName, version, dir, addon };
}
