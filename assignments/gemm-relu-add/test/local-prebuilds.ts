/**
 * isolated-vm's compiled addon, offered to `npm install` as a prebuild, so that installing the
 * handout in a test unpacks it instead of compiling it.
 *
 * A student's `npm install` runs isolated-vm's `prebuild-install`, which downloads the addon from
 * isolated-vm's GitHub releases, and compiles it from source (minutes on 2 cores) only where that
 * fails. CI reaches the package registries but not GitHub, so every handout test compiled it. The
 * workspace has already built the same version for the same Node: packed as prebuild-install
 * names its release assets and found through its documented `local_prebuilds` setting, it takes
 * the download's place, and the install is otherwise the student's.
 */
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { execa } from "execa";

/** The aliases of isolated-vm (`npm:isolated-vm@…`) that `graderManifest` depends on. */
function isolatedVmAliases(graderManifest: string): string[] {
  const manifest = JSON.parse(readFileSync(graderManifest, "utf8")) as {
    dependencies?: Record<string, string>;
    optionalDependencies?: Record<string, string>;
  };
  const deps = { ...manifest.dependencies, ...manifest.optionalDependencies };
  return Object.entries(deps)
    .filter(([, spec]) => spec.startsWith("npm:isolated-vm@"))
    .map(([alias]) => alias);
}

/** prebuild-install's name for a release asset: `{name}-v{version}-node-v{abi}-{platform}{libc}-{arch}.tar.gz`. */
function assetName(version: string): string {
  return `isolated-vm-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
}

/** True on glibc Linux, where prebuild-install's libc part of the name is empty. */
function onGlibc(): boolean {
  const report = process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined;
  return process.platform === "linux" && typeof report?.header?.glibcVersionRuntime === "string";
}

/**
 * Writes into `dir` a prebuild tarball of each isolated-vm the grader (`graderManifest`, its
 * package.json) depends on and the workspace has compiled for this Node, and returns the
 * environment that points prebuild-install at them. Returns no variable where there is nothing to
 * offer (not glibc Linux, or no compiled addon): the install then compiles, as before.
 */
export async function localIsolatedVmPrebuilds(graderManifest: string, dir: string): Promise<Record<string, string>> {
  if (!onGlibc()) return {};
  const require = createRequire(graderManifest);
  let packed = 0;
  for (const alias of isolatedVmAliases(graderManifest)) {
    let packageJson: string;
    try {
      packageJson = require.resolve(`${alias}/package.json`);
    } catch {
      continue; // not installed for this Node (an optional dependency for another Node major)
    }
    const root = dirname(packageJson);
    if (!existsSync(join(root, "out", "isolated_vm.node"))) continue;
    const { version } = JSON.parse(readFileSync(packageJson, "utf8")) as { version: string };
    mkdirSync(dir, { recursive: true });
    await execa("tar", ["-czf", join(dir, assetName(version)), "-C", root, "out/isolated_vm.node"]);
    packed++;
  }
  return packed === 0 ? {} : { npm_config_isolated_vm_local_prebuilds: dir };
}
