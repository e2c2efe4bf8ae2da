/**
 * The workspace's packages as their package.json files describe them: name, folder, whether they
 * are published, their entry points (the `@tessera/source` file of each `exports` subpath) and
 * their dependencies on one another.
 */
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";

export interface EntryPoint {
  readonly specifier: string; // what a consumer imports: `@tessera/ir`, `@tessera/ir/executor-kit`
  readonly source: string; // the entry's TypeScript source, relative to the repository root
}

export interface WorkspacePackage {
  readonly name: string;
  readonly dir: string; // relative to the repository root: `packages/ir`
  readonly publishable: boolean;
  readonly entryPoints: readonly EntryPoint[];
  readonly dependsOn: readonly string[]; // workspace packages among `dependencies`
  readonly devDependsOn: readonly string[]; // workspace packages among `devDependencies` only
}

/** The folders `pnpm-workspace.yaml` lists, in the order the compile flow reads them. */
const WORKSPACE_FOLDERS = ["packages", "apps", "assignments"];

interface PackageJson {
  name?: string;
  private?: boolean;
  exports?: Record<string, unknown>;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

export function readWorkspace(root: string): WorkspacePackage[] {
  const manifests: [string, PackageJson][] = [];
  for (const folder of WORKSPACE_FOLDERS) {
    if (!existsSync(join(root, folder))) continue;
    for (const name of readdirSync(join(root, folder)).sort()) {
      const file = join(root, folder, name, "package.json");
      if (existsSync(file)) manifests.push([`${folder}/${name}`, JSON.parse(readFileSync(file, "utf8")) as PackageJson]);
    }
  }
  const names = new Set(manifests.map(([, pkg]) => pkg.name));
  const workspaceDeps = (deps: Record<string, string> | undefined) =>
    Object.keys(deps ?? {})
      .filter((d) => names.has(d))
      .sort();
  return manifests.map(([dir, pkg]) => {
    if (pkg.name === undefined) throw new Error(`${dir}/package.json has no name`);
    const dependsOn = workspaceDeps(pkg.dependencies);
    return {
      name: pkg.name,
      dir,
      publishable: pkg.private !== true,
      entryPoints: entryPoints(pkg.name, dir, pkg.exports ?? {}),
      dependsOn,
      devDependsOn: workspaceDeps(pkg.devDependencies).filter((d) => !dependsOn.includes(d)),
    };
  });
}

/** The subpaths of `exports` that lead to TypeScript sources (`./package.json` and data files do not). */
function entryPoints(name: string, dir: string, exports: Record<string, unknown>): EntryPoint[] {
  const out: EntryPoint[] = [];
  for (const [subpath, target] of Object.entries(exports)) {
    const source = typeof target === "object" && target !== null ? (target as Record<string, unknown>)["@tessera/source"] : undefined;
    if (typeof source !== "string" || !source.endsWith(".ts")) continue;
    out.push({ specifier: subpath === "." ? name : `${name}/${subpath.replace(/^\.\//, "")}`, source: join(dir, source) });
  }
  return out;
}
