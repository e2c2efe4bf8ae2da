/**
 * The @tessera packages a handout installs (the ones student files import), built when their
 * dist/ is stale and packed with `pnpm pack` (which rewrites `workspace:*` ranges to versions and
 * drops the in-repo source condition). Reuses the packing helpers of `pnpm test:pack`.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { buildPackage, distIsCurrent, packPackages, packageDir } from "../../../../packages/runtime/test/packaging/published-packages.js";
import { HANDOUT_TARBALL_DIR, type HandoutTarball, packedTarballName } from "../../src/index.js";

/** What student files import, in dependency order (schedule depends on ir). */
export const HANDOUT_PACKAGES = ["ir", "schedule"] as const;

/** The handout's tarballs (relative to the handout), as `pnpm pack` will name them. */
export function handoutTarballs(): HandoutTarball[] {
  return HANDOUT_PACKAGES.map((dir) => {
    const manifest = JSON.parse(readFileSync(join(packageDir(dir), "package.json"), "utf8")) as { name: string; version: string };
    return { name: manifest.name, file: `${HANDOUT_TARBALL_DIR}/${packedTarballName(manifest.name, manifest.version)}` };
  });
}

/** Builds (when stale) and packs the handout's packages into `handoutDir/tarballs`; returns what `log` may print. */
export async function packHandoutPackages(handoutDir: string, log: (line: string) => void): Promise<void> {
  let rebuilt = false;
  for (const dir of HANDOUT_PACKAGES) {
    const pkg = packageDir(dir);
    // A package after a rebuilt one is rebuilt too: its dist/ was type-checked against the old one.
    if (!rebuilt && distIsCurrent(pkg)) continue;
    log(`building @tessera/${dir} …`);
    await buildPackage(pkg);
    rebuilt = true;
  }
  await packPackages(HANDOUT_PACKAGES, join(handoutDir, HANDOUT_TARBALL_DIR));
}
