import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { LoopRV, Schedule } from "../src/index.js";
import { FUNC, scheduleGemm } from "./trace-fixtures.js";

const pkg = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** Type-checks files that import "@tessera/schedule" the way a student's project would (strict). */
function typeErrors(files: Record<string, string>): string[] {
  const dir = mkdtempSync(join(tmpdir(), "tessera-trace-"));
  writeFileSync(join(dir, "package.json"), '{ "type": "module" }');
  const names = Object.entries(files).map(([name, text]) => {
    writeFileSync(join(dir, name), text);
    return join(dir, name);
  });
  const program = ts.createProgram(names, {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    target: ts.ScriptTarget.ES2022,
    lib: ["lib.es2022.d.ts"],
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    customConditions: ["@tessera/source"],
    types: ["node"],
    typeRoots: [join(pkg, "node_modules/@types")],
    paths: { "@tessera/schedule": [join(pkg, "src/index.ts")] },
  });
  return ts
    .getPreEmitDiagnostics(program)
    .map((d) => `${d.file?.fileName ?? ""}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`);
}

describe("applyTrace printing", () => {
  it("type-checks against the Schedule API", () => {
    const sch = scheduleGemm(11);
    const relu = new Schedule(FUNC);
    relu.computeAt(relu.getBlock("relu"), LoopRV.ROOT);
    relu.cacheWrite(relu.getBlock("gemm"), 0, "local", [relu.getBlock("relu")]);
    const errors = typeErrors({
      "a.ts": sch.trace.show(),
      "b.ts": relu.trace.show({ functionName: "other" }),
      // A negative control: the checker does see API misuse.
      "c.ts": 'import type { Schedule } from "@tessera/schedule";\nexport function f(sch: Schedule): void {\n  sch.split(sch.getBlock("x"), [1]);\n}\n',
    });
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/c\.ts: Argument of type 'BlockRV' is not assignable to parameter of type 'LoopRV'/);
  }, 60_000);
});
