/**
 * `pnpm typecheck` is one program over the root tsconfig.json (tsgo, TypeScript's native compiler;
 * `pnpm typecheck:tsc` runs tsc on the same programs). It must check every file that some workspace
 * tsconfig.json includes (`pnpm -F PKG typecheck`), so that a folder added to a
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

/** The programs a typecheck script runs: each `tsgo -p CONFIG` or `tsc -p CONFIG` of it (the root one, and the browser app's). */
function typecheckPrograms(scriptName: string): string[] {
  const script = (JSON.parse(ts.sys.readFile(join(ROOT, "package.json")) ?? "{}") as { scripts?: Record<string, string> }).scripts?.[scriptName] ?? "";
  return [...script.matchAll(/\b(?:tsgo|tsc) -p (\S+)/g)].map((m) => join(ROOT, m[1]!));
}

describe("the root tsconfig.json (pnpm typecheck)", () => {
  it("pnpm typecheck (tsgo) and pnpm typecheck:tsc (tsc) check the same programs", () => {
    expect(typecheckPrograms("typecheck")).toEqual(typecheckPrograms("typecheck:tsc"));
  });

  it("includes every file of every workspace tsconfig.json", () => {
    const programs = typecheckPrograms("typecheck");
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
