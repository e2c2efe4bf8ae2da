/**
 * @tessera/ir, schedule, codegen, simulator and webgpu (the explorer's imports) load in a browser: each of their exports, bundled
 * for the browser, imports no Node built-in. Node-only code belongs behind a subpath export listed
 * in NODE_ONLY_SUBPATHS.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { nodeBuiltinsReachedFrom } from "../browser/node-builtins.js";

const ROOT = join(import.meta.dirname, "..", "..");
const BROWSER_PACKAGES = ["ir", "schedule", "codegen", "simulator", "webgpu"] as const;
/** Subpath exports (package/subpath) that may use Node: webgpu's Dawn entry, schedule's machine probe. */
const NODE_ONLY_SUBPATHS: readonly string[] = ["webgpu/./node", "schedule/./machine"];

interface ExportEntry {
  readonly "@tessera/source"?: string;
}

/** Each subpath export of the package with the source file the workspace resolves it to. */
function sourceExports(pkg: string): { subpath: string; file: string }[] {
  const manifest = JSON.parse(readFileSync(join(ROOT, "packages", pkg, "package.json"), "utf8")) as { exports: Record<string, ExportEntry | string> };
  return Object.entries(manifest.exports).flatMap(([subpath, target]) => {
    if (typeof target === "string") return [];
    const source = target["@tessera/source"];
    if (source === undefined || NODE_ONLY_SUBPATHS.includes(`${pkg}/${subpath}`)) return [];
    return [{ subpath, file: join("packages", pkg, source) }];
  });
}

describe("browser bundles", () => {
  it(`every export of ${BROWSER_PACKAGES.map((p) => `@tessera/${p}`).join(", ")} imports no Node built-in`, async () => {
    const entries = BROWSER_PACKAGES.flatMap(sourceExports);
    // ir's "." and "./executor-kit", schedule's "." and "./errors", codegen's, simulator's and webgpu's ".".
    expect(entries.length).toBe(7);
    const found = await nodeBuiltinsReachedFrom(ROOT, { files: entries.map((e) => e.file) });
    expect(found.map((f) => `${f.importer} imports ${f.builtin}`)).toEqual([]);
  });

  it("names the built-in and the file that imports it", async () => {
    // A module of its own that reaches node:os through another file, beside a direct import.
    const dir = mkdtempSync(join(tmpdir(), "tessera-browser-bundle-"));
    try {
      writeFileSync(join(dir, "cores.ts"), 'import { cpus } from "node:os";\nexport const cores = cpus().length;\n');
      const found = await nodeBuiltinsReachedFrom(dir, { source: 'export * from "./cores.ts";\nimport "fs";\n' });
      expect(found).toEqual([
        { builtin: "fs", importer: "entry.ts" },
        { builtin: "node:os", importer: "cores.ts" },
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
