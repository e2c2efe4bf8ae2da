/**
 * `pnpm typecheck` is one tsc program over the root tsconfig.json. It must check every file that
 * some workspace tsconfig.json includes (`pnpm -F PKG typecheck`), so that a folder added to a
 * package's tsconfig, or a new package, is never left out of CI's check.
 */
import { readdirSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

function filesOf(tsconfig: string): string[] {
  const read = ts.readConfigFile(tsconfig, (path) => ts.sys.readFile(path));
  if (read.error !== undefined) throw new Error(ts.flattenDiagnosticMessageText(read.error.messageText, "\n"));
  const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, dirname(tsconfig), undefined, tsconfig);
  return parsed.fileNames.map((f) => resolve(f));
}

function workspaceConfigs(): string[] {
  const groups = ["packages", "apps", "assignments"].flatMap((group) =>
    readdirSync(join(ROOT, group), { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => join(ROOT, group, d.name, "tsconfig.json"))
      .filter((path) => ts.sys.fileExists(path)),
  );
  return [...groups, join(ROOT, "scripts", "tsconfig.json")];
}

/** The programs `pnpm typecheck` runs: each `tsc -p CONFIG` of its script (the root one, and the browser app's). */
function typecheckPrograms(): string[] {
  const script = (JSON.parse(ts.sys.readFile(join(ROOT, "package.json")) ?? "{}") as { scripts?: Record<string, string> }).scripts?.typecheck ?? "";
  return [...script.matchAll(/tsc -p (\S+)/g)].map((m) => join(ROOT, m[1]!));
}

describe("the root tsconfig.json (pnpm typecheck)", () => {
  it("includes every file of every workspace tsconfig.json", () => {
    const programs = typecheckPrograms();
    expect(programs).toContain(join(ROOT, "tsconfig.json"));
    const checked = new Set(programs.flatMap(filesOf));
    const configs = workspaceConfigs();
    expect(configs.length).toBeGreaterThan(5);
    const missing = configs.flatMap((config) =>
      filesOf(config)
        .filter((f) => !checked.has(f))
        .map((f) => relative(ROOT, f)),
    );
    expect(missing).toEqual([]);
  });
});
