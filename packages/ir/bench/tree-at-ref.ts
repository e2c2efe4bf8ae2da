/**
 * The workspace's packages as they are at another commit, loaded next to this tree's, so that a
 * benchmark can time both in one process, run by run in turn (`bench:lower --compare REF`,
 * `bench:schedule --compare REF`): a ratio measured that way holds on a busy machine, where two
 * separate runs minutes apart do not.
 *
 * Both sides are built the same way, so that the build is not what differs: the commit's files
 * (`git archive`) or this working tree are bundled by esbuild from an entry that re-exports the
 * packages asked for, `@tessera/*` resolved inside that tree through each package's
 * `@tessera/source` export, third-party packages from this checkout's install.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { type Plugin, build } from "esbuild";

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

/** What a side of a comparison is: this working tree, or a commit (anything `git rev-parse` takes). */
export type TreeSource = { readonly kind: "working-tree" } | { readonly kind: "commit"; readonly ref: string };

export interface LoadedTree {
  /** `working tree` or `<short hash> (<ref>)`. */
  readonly label: string;
  /** Each requested package's exports, by the name it was asked for. */
  readonly modules: Record<string, Record<string, unknown>>;
  /** Removes the scratch copy and bundle. */
  dispose(): void;
}

export class TreeAtRefError extends Error {
  override readonly name = "TreeAtRefError";
}

/**
 * Loads `packages` (`{ codegen: "@tessera/codegen", … }`) as they are in `source`; a specifier
 * starting with `./` is a file of that tree (`./packages/meta-schedule/src/search/replay-job.ts`:
 * internals a package does not export). A commit whose files do not have what a benchmark calls
 * fails there, with the benchmark's own message.
 */
export async function loadTree(source: TreeSource, packages: Record<string, string>): Promise<LoadedTree> {
  const scratch = mkdtempSync(join(tmpdir(), "tessera-tree-at-ref-"));
  try {
    let root = REPO_ROOT;
    let label = workingTreeLabel();
    if (source.kind === "commit") {
      const hash = revParse(source.ref);
      label = `${hash.slice(0, 9)} (${source.ref})`;
      root = join(scratch, "tree");
      mkdirSync(root);
      // Only what the packages' sources need; the commit's own install is never used.
      const folders = WORKSPACE_FOLDERS.filter((f) => treeHas(hash, f));
      const archive = execFileSync("git", ["archive", "--format=tar", hash, ...folders], { cwd: REPO_ROOT, maxBuffer: 1 << 30 });
      execFileSync("tar", ["-x", "-C", root], { input: archive });
    }
    const entry = join(scratch, "entry.mjs");
    writeFileSync(
      entry,
      Object.entries(packages)
        .map(([name, spec]) => `export * as ${name} from ${JSON.stringify(spec.startsWith("./") ? join(root, spec) : spec)};`)
        .join("\n"),
    );
    const outfile = join(scratch, "bundle.mjs");
    await build({
      entryPoints: [entry],
      outfile,
      bundle: true,
      platform: "node",
      format: "esm",
      target: `node${process.versions.node.split(".")[0]}`,
      logLevel: "silent",
      plugins: [workspaceResolver(root)],
      // pnpm keeps every installed package reachable from here (its hoisted folder).
      nodePaths: [join(REPO_ROOT, "node_modules", ".pnpm", "node_modules"), join(REPO_ROOT, "node_modules")],
      // Packages that load native code or files beside themselves stay outside the bundle.
      external: ["isolated-vm", "esbuild", "@resvg/*", "msgpackr-extract"],
      banner: { js: "import { createRequire as __tesseraRequire } from 'node:module'; const require = __tesseraRequire(import.meta.url);" },
    }).catch((err: unknown) => {
      throw new TreeAtRefError(`could not bundle ${Object.values(packages).join(", ")} from the ${label}: ${err instanceof Error ? err.message : String(err)}`);
    });
    const modules = (await import(pathToFileURL(outfile).href)) as Record<string, Record<string, unknown>>;
    return { label, modules, dispose: () => rmSync(scratch, { recursive: true, force: true }) };
  } catch (err) {
    rmSync(scratch, { recursive: true, force: true });
    throw err;
  }
}

/**
 * `--compare REF [--with REF2]` from the command line: the commit to time (side b) beside this
 * working tree, or beside commit REF2 (side a, e.g. to find which commit made something slower).
 */
export function compareArgument(): { readonly a: TreeSource; readonly b: TreeSource } | undefined {
  const ref = optionValue("--compare");
  if (ref === undefined) {
    if (optionValue("--with") !== undefined) throw new TreeAtRefError("--with goes with --compare REF");
    return undefined;
  }
  const other = optionValue("--with");
  return { a: other === undefined ? { kind: "working-tree" } : { kind: "commit", ref: other }, b: { kind: "commit", ref } };
}

/**
 * When the command line asks for `--compare`, runs `compare` with the two sides (a failure is one
 * line on stderr and exit code 1) and returns true; otherwise returns false.
 */
export function runIfComparing(compare: (sides: { readonly a: TreeSource; readonly b: TreeSource }) => Promise<void>): boolean {
  const sides = compareArgument();
  if (sides === undefined) return false;
  void compare(sides).catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : String(err));
    process.exitCode = 1;
  });
  return true;
}

/** `--compare B [--with A]` as typed. */
export function commandLine(sides: { readonly a: TreeSource; readonly b: TreeSource }): string {
  const ref = (t: TreeSource): string => (t.kind === "commit" ? t.ref : "");
  return sides.a.kind === "commit" ? `--compare ${ref(sides.b)} --with ${ref(sides.a)}` : `--compare ${ref(sides.b)}`;
}

function optionValue(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  if (i < 0) return undefined;
  const value = process.argv[i + 1];
  if (value === undefined || value.startsWith("--")) throw new TreeAtRefError(`${name} needs a commit (a hash, a branch or a tag)`);
  return value;
}

/** Loads both sides of a comparison (the first is disposed if the second fails). */
export async function loadPair(sides: { readonly a: TreeSource; readonly b: TreeSource }, packages: Record<string, string>): Promise<[LoadedTree, LoadedTree]> {
  const a = await loadTree(sides.a, packages);
  try {
    return [a, await loadTree(sides.b, packages)];
  } catch (err) {
    a.dispose();
    throw err;
  }
}

/** The folders whose packages a bundle may import (the course's packages were imported by the corpus at some commits). */
const WORKSPACE_FOLDERS = ["packages", "assignments"];

function treeHas(hash: string, folder: string): boolean {
  return execFileSync("git", ["ls-tree", "--name-only", hash, folder], { cwd: REPO_ROOT, encoding: "utf8" }).trim() !== "";
}

/** `working tree (at 1a2b3c4d5)`, with `+ changes` where it differs from that commit. */
function workingTreeLabel(): string {
  try {
    const head = execFileSync("git", ["rev-parse", "--short=9", "HEAD"], { cwd: REPO_ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
    const dirty = execFileSync("git", ["status", "--porcelain", "--untracked-files=no", "packages"], { cwd: REPO_ROOT, encoding: "utf8" }).trim() !== "";
    return `working tree (at ${head}${dirty ? " + changes" : ""})`;
  } catch {
    return "working tree";
  }
}

function revParse(ref: string): string {
  try {
    return execFileSync("git", ["rev-parse", "--verify", `${ref}^{commit}`], { cwd: REPO_ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();
  } catch {
    throw new TreeAtRefError(`--compare ${ref}: no such commit in ${REPO_ROOT}`);
  }
}

/** Resolves `@tessera/<name>[/<subpath>]` to the `@tessera/source` export of that package in `root`. */
function workspaceResolver(root: string): Plugin {
  const packages = workspacePackages(root);
  return {
    name: "tessera-workspace-at-ref",
    setup(b) {
      b.onResolve({ filter: /^@tessera\// }, (args) => {
        const [scope, name, ...rest] = args.path.split("/");
        const pkg = packages.get(`${scope}/${name}`);
        if (pkg === undefined)
          return { errors: [{ text: `${args.path}: no package ${scope}/${name} under ${WORKSPACE_FOLDERS.map((f) => join(root, f)).join(" or ")}` }] };
        const subpath = rest.length === 0 ? "." : `./${rest.join("/")}`;
        const target = sourceExport(pkg.manifest, subpath);
        if (target === undefined)
          return { errors: [{ text: `${args.path}: ${pkg.dir}/package.json exports no "${subpath}" with a @tessera/source condition` }] };
        return { path: join(pkg.dir, target) };
      });
    },
  };
}

interface WorkspacePackage {
  readonly dir: string;
  readonly manifest: { readonly exports?: unknown };
}

function workspacePackages(root: string): Map<string, WorkspacePackage> {
  const out = new Map<string, WorkspacePackage>();
  if (!existsSync(join(root, "packages"))) throw new TreeAtRefError(`${root} has no packages folder`);
  for (const folder of WORKSPACE_FOLDERS) {
    const base = join(root, folder);
    if (!existsSync(base)) continue;
    for (const entry of readdirSync(base, { withFileTypes: true })) {
      const file = join(base, entry.name, "package.json");
      if (!entry.isDirectory() || !existsSync(file)) continue;
      const manifest = JSON.parse(readFileSync(file, "utf8")) as { name?: string; exports?: unknown };
      if (typeof manifest.name === "string") out.set(manifest.name, { dir: join(base, entry.name), manifest });
    }
  }
  return out;
}

function sourceExport(manifest: WorkspacePackage["manifest"], subpath: string): string | undefined {
  const exports = manifest.exports;
  if (typeof exports !== "object" || exports === null) return undefined;
  const entry = (exports as Record<string, unknown>)[subpath];
  if (typeof entry !== "object" || entry === null) return undefined;
  const source = (entry as Record<string, unknown>)["@tessera/source"];
  return typeof source === "string" ? source : undefined;
}
