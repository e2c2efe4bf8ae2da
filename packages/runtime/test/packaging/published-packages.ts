/**
 * Test support for the packaging test: builds the published workspace packages (skipping a
 * package whose dist/ is current), packs them with `pnpm pack`, and installs the tarballs with
 * npm into a scratch project outside the workspace, as a project that depends on them would.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { mkdir, readdir, rm, writeFile } from "node:fs/promises";
import { createRequire, isBuiltin } from "node:module";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { init as initModuleLexer, parse as parseModule } from "es-module-lexer";
import { execa } from "execa";

export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "..");

/** The published packages in dependency order (each depends only on packages before it). */
export const PUBLISHED_PACKAGES = ["ir", "schedule", "codegen", "simulator", "runtime", "meta-schedule"] as const;

export function packageDir(name: string): string {
  return join(REPO_ROOT, "packages", name);
}

function filesUnder(dir: string, suffix: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(suffix))
    .map((f) => join(dir, f));
}

/**
 * Whether dist/ was compiled from the current sources: one `.js` per `src/**\/*.ts` (no file left
 * from a deleted source), none older than its source or than the build's tsconfigs.
 */
export function distIsCurrent(dir: string): boolean {
  const sources = filesUnder(join(dir, "src"), ".ts").filter((f) => !f.endsWith(".d.ts"));
  const outputs = filesUnder(join(dir, "dist"), ".js");
  if (outputs.length !== sources.length) return false;
  const configTime = Math.max(statSync(join(dir, "tsconfig.build.json")).mtimeMs, statSync(join(REPO_ROOT, "tsconfig.base.json")).mtimeMs);
  return sources.every((src) => {
    const out = join(dir, "dist", relative(join(dir, "src"), src)).replace(/\.ts$/, ".js");
    if (!existsSync(out)) return false;
    const outTime = statSync(out).mtimeMs;
    return outTime >= statSync(src).mtimeMs && outTime >= configTime;
  });
}

const tscBin = createRequire(import.meta.url).resolve("typescript/bin/tsc");

/** Runs the workspace's TypeScript compiler, tsc (what a consumer type-checks with). */
export async function tsc(args: readonly string[], cwd: string): Promise<void> {
  const res = await execa(process.execPath, [tscBin, ...args], { cwd, reject: false, all: true });
  if (res.exitCode !== 0) throw new Error(`tsc ${args.join(" ")} in ${cwd} failed:\n${res.all}`);
}

/** The compilers a package's `build` script may name (from the workspace root's devDependencies). */
const BUILD_COMPILERS = new Set(["tsc", "tsgo"]);

/**
 * The compiler and arguments of a package's `build` script (`tsgo -p tsconfig.build.json`), so
 * that the packaging tests build dist/ exactly as `pnpm build` and `prepublishOnly` do.
 */
export function buildCommandOf(dir: string): { compiler: string; args: string[] } {
  const manifestPath = join(dir, "package.json");
  const manifest = JSON.parse(readFileSync(manifestPath, "utf8")) as { scripts?: Record<string, string> };
  const script = manifest.scripts?.build ?? "";
  const [compiler = "", ...args] = script.trim().split(/\s+/);
  if (!BUILD_COMPILERS.has(compiler)) throw new Error(`${manifestPath}: the build script "${script}" does not start with ${[...BUILD_COMPILERS].join(" or ")}`);
  return { compiler, args };
}

/** Builds a package's dist/ from scratch with its own `build` script's compiler and arguments. */
export async function buildPackage(dir: string): Promise<void> {
  const { compiler, args } = buildCommandOf(dir);
  await rm(join(dir, "dist"), { recursive: true, force: true });
  const res = await execa(join(REPO_ROOT, "node_modules", ".bin", compiler), args, { cwd: dir, reject: false, all: true });
  if (res.exitCode !== 0) throw new Error(`${compiler} ${args.join(" ")} in ${dir} failed:\n${res.all}`);
}

/**
 * Builds the published packages whose dist/ is out of date (from scratch: dist/ is removed
 * first), and every package after a rebuilt one. Returns the names it built.
 */
export async function buildPublishedPackages(): Promise<string[]> {
  const built: string[] = [];
  for (const name of PUBLISHED_PACKAGES) {
    const dir = packageDir(name);
    if (built.length === 0 && distIsCurrent(dir)) continue;
    await buildPackage(dir);
    built.push(name);
  }
  return built;
}

/**
 * `pnpm pack`s the workspace packages `names` (folders under packages/) into `dest` with one pnpm
 * (`pnpm -r --filter … pack`): a `pnpm pack` per package was 1.7 CPU s each, mostly pnpm starting,
 * the six of test:pack 10.6 CPU s against 2.3 for one recursive pack of the same tarballs.
 */
export async function packPackages(names: readonly string[], dest: string): Promise<void> {
  await mkdir(dest, { recursive: true });
  const filters = names.flatMap((name) => ["--filter", packageNameOf(name)]);
  const res = await execa("pnpm", ["--recursive", ...filters, "pack", "--pack-destination", dest], {
    cwd: REPO_ROOT,
    reject: false,
    all: true,
    env: childEnv(),
  });
  if (res.exitCode !== 0) throw new Error(`pnpm pack of ${names.map(packageNameOf).join(", ")} failed:\n${res.all}`);
}

/** The name in a workspace package's manifest (`@tessera/ir` for packages/ir). */
export function packageNameOf(name: string): string {
  return (JSON.parse(readFileSync(join(packageDir(name), "package.json"), "utf8")) as { name: string }).name;
}

/** `pnpm pack`s each published package into `dest`; returns the tarballs' paths. */
export async function packPublishedPackages(dest: string): Promise<string[]> {
  await packPackages(PUBLISHED_PACKAGES, dest);
  return (await readdir(dest)).filter((f) => f.endsWith(".tgz")).map((f) => join(dest, f));
}

/**
 * The environment of a process that must behave as it would outside this workspace: without
 * the variables pnpm sets for the test run (they would make npm think it runs a workspace
 * script) and without NODE_OPTIONS (which might carry the in-repo source condition).
 */
export function childEnv(extra: Record<string, string> = {}): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^(npm_(command|execpath|node_execpath|lifecycle_|package_|config_user_agent|config_verify_deps)|pnpm_|PNPM_|NODE_OPTIONS$|VITEST|TEST$)/i.test(key))
      continue;
    env[key] = value;
  }
  return { ...env, ...extra };
}

export interface InstallResult {
  readonly log: string;
  readonly seconds: number;
}

/**
 * Makes `projectDir` an npm project (ESM, allowing @tessera/runtime's install script) and
 * installs `tarballs` into it with npm; third-party dependencies come from npm's cache, else the
 * registry.
 */
export async function installTarballs(projectDir: string, tarballs: readonly string[], env: Record<string, string> = {}): Promise<InstallResult> {
  const manifest = {
    name: "tessera-consumer",
    private: true,
    type: "module",
    // npm ≥ 11.10 asks before running dependencies' install scripts; the runtime's builds its addon.
    allowScripts: { "@tessera/runtime": true },
  };
  await writeFile(join(projectDir, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  const started = performance.now();
  const res = await execa("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", "--foreground-scripts", ...tarballs], {
    cwd: projectDir,
    reject: false,
    all: true,
    env: childEnv(env),
  });
  if (res.exitCode !== 0) throw new Error(`npm install of the tarballs failed (exit ${res.exitCode}):\n${res.all}`);
  return { log: res.all ?? "", seconds: (performance.now() - started) / 1000 };
}

/** Module specifiers of static and literal dynamic imports that are not relative paths. */
export async function bareSpecifiers(js: string): Promise<string[]> {
  await initModuleLexer;
  const [imports] = parseModule(js);
  return [...new Set(imports.flatMap((i) => (i.n !== undefined && !/^[./]/.test(i.n) ? [i.n] : [])))];
}

/** The package a specifier names (`@scope/name` or `name`), or undefined for a Node built-in. */
export function packageOfSpecifier(spec: string): string | undefined {
  if (isBuiltin(spec)) return undefined;
  const parts = spec.split("/");
  return spec.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0];
}

export interface ManifestProblem {
  readonly pkg: string;
  readonly problem: string;
}

/**
 * What is wrong with an installed package for a consumer: `workspace:` specifiers left in its
 * manifest, the in-repo source condition in its exports, exports or files that are missing, and
 * modules of its dist/ that import a package it does not declare as a dependency.
 */
export async function installedPackageProblems(installedDir: string): Promise<ManifestProblem[]> {
  const manifest = JSON.parse(readFileSync(join(installedDir, "package.json"), "utf8")) as {
    name: string;
    private?: boolean;
    exports?: unknown;
    dependencies?: Record<string, string>;
    peerDependencies?: Record<string, string>;
    optionalDependencies?: Record<string, string>;
  };
  const pkg = manifest.name;
  const problems: ManifestProblem[] = [];
  const add = (problem: string) => problems.push({ pkg, problem });
  if (manifest.private === true) add("is private");
  const declared = new Map([manifest.dependencies, manifest.peerDependencies, manifest.optionalDependencies].flatMap((deps) => Object.entries(deps ?? {})));
  for (const [dep, range] of declared) if (range.startsWith("workspace:")) add(`depends on ${dep}@${range}`);
  const exportsText = JSON.stringify(manifest.exports ?? null);
  if (exportsText.includes("@tessera/source")) add(`exports keep the in-repo condition: ${exportsText}`);
  for (const file of exportTargets(manifest.exports)) {
    if (!existsSync(join(installedDir, file))) add(`exports ${file}, which is not in the package`);
  }
  for (const file of filesUnder(join(installedDir, "dist"), ".js")) {
    for (const spec of await bareSpecifiers(readFileSync(file, "utf8"))) {
      const dep = packageOfSpecifier(spec);
      if (dep !== undefined && dep !== pkg && !declared.has(dep)) add(`${relative(installedDir, file)} imports "${spec}", which is not a dependency`);
    }
  }
  return problems;
}

/** The files an `exports` field points at: its string values, at any depth (subpath keys such as "./isolation" are not files). */
export function exportTargets(exports: unknown): string[] {
  if (typeof exports === "string") return exports.startsWith("./") ? [exports] : [];
  if (Array.isArray(exports)) return exports.flatMap(exportTargets);
  if (exports !== null && typeof exports === "object") return Object.values(exports).flatMap(exportTargets);
  return [];
}
