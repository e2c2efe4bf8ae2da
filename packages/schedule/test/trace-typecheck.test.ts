import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { afterAll, describe, expect, it } from "vitest";
import { LoopRV, Schedule } from "../src/index.js";
import { manualSchedule, naiveSchedule } from "./course-schedules.js";
import { FUNC, scheduleGemm } from "./trace-fixtures.js";
import { MMA_16, matmulNT } from "./tensorize/fixtures.js";

const pkg = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/**
 * The repository's compiler options (tsconfig.base.json: strict, noUncheckedIndexedAccess,
 * verbatimModuleSyntax, NodeNext), as a student's project inherits them.
 */
function repoCompilerOptions(dir: string): ts.CompilerOptions {
  const path = join(pkg, "../../tsconfig.base.json");
  const read = ts.readConfigFile(path, (p) => ts.sys.readFile(p));
  if (read.error !== undefined) throw new Error(ts.flattenDiagnosticMessageText(read.error.messageText, "\n"));
  const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, dir);
  return parsed.options;
}

/**
 * Parsed files shared by the programs of this file's tests (lib.d.ts, @types/node, the package's
 * sources): each is parsed once, not once per program.
 */
const parsedFiles = new Map<string, ts.SourceFile>();
// The workers of the slow project run file after file (isolate: false): the trees go with this file.
afterAll(() => parsedFiles.clear());

function cachingHost(options: ts.CompilerOptions): ts.CompilerHost {
  const host = ts.createCompilerHost(options);
  const parse = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, languageVersion, onError, shouldCreate) => {
    const cached = parsedFiles.get(fileName);
    if (cached !== undefined) return cached;
    const file = parse(fileName, languageVersion, onError, shouldCreate);
    if (file !== undefined && !fileName.startsWith(tmpdir())) parsedFiles.set(fileName, file);
    return file;
  };
  return host;
}

/**
 * Type-checks files that import "@tessera/schedule" the way a student's project would: the errors
 * in those files (the package's own sources are checked by `pnpm typecheck`).
 */
function typeErrors(files: Record<string, string>): string[] {
  const dir = mkdtempSync(join(tmpdir(), "tessera-trace-"));
  writeFileSync(join(dir, "package.json"), '{ "type": "module" }');
  const names = Object.entries(files).map(([name, text]) => {
    writeFileSync(join(dir, name), text);
    return join(dir, name);
  });
  const base = repoCompilerOptions(dir);
  expect(base.noUncheckedIndexedAccess).toBe(true);
  const options: ts.CompilerOptions = {
    ...base,
    noEmit: true,
    declaration: false,
    declarationMap: false,
    sourceMap: false,
    typeRoots: [join(pkg, "node_modules/@types")],
    paths: { "@tessera/schedule": [join(pkg, "src/index.ts")] },
  };
  const program = ts.createProgram(names, options, cachingHost(options));
  const ownFiles = names.map((name) => program.getSourceFile(name)).filter((file) => file !== undefined);
  expect(ownFiles).toHaveLength(names.length);
  const diagnostics = [
    ...program.getOptionsDiagnostics(),
    ...program.getGlobalDiagnostics(),
    ...ownFiles.flatMap((file) => [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)]),
  ];
  return diagnostics.map((d) => `${d.file?.fileName ?? ""}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`);
}

describe("applyTrace printing", () => {
  it("type-checks against the Schedule API", () => {
    const sch = scheduleGemm(11);
    const relu = new Schedule(FUNC);
    relu.computeAt(relu.getBlock("relu"), LoopRV.ROOT);
    relu.cacheWrite(relu.getBlock("gemm"), 0, "local", [relu.getBlock("relu")]);
    // blockize of a loop and of blocks, and tensorize (a loop, then a block handle).
    const tiles = new Schedule(matmulNT(32));
    const [i, j, k] = tiles.getLoops(tiles.getBlock("update"));
    const [i0, i1] = tiles.split(i, [null, 16]);
    const [j0, j1] = tiles.split(j, [null, 16]);
    const [k0, k1] = tiles.split(k, [null, 16]);
    tiles.reorder(i0, j0, k0, i1, j1, k1);
    tiles.tensorize(tiles.blockize(i1, { preserveUnitIters: false }), MMA_16);
    tiles.blockize([tiles.getBlock("update_o")]);
    const errors = typeErrors({
      "a.ts": sch.trace.show(),
      "b.ts": relu.trace.show({ functionName: "other" }),
      "d.ts": tiles.trace.show({ functionName: "tiles" }),
      // A negative control: the checker does see API misuse.
      "c.ts": 'import type { Schedule } from "@tessera/schedule";\nexport function f(sch: Schedule): void {\n  sch.split(sch.getBlock("x"), [1]);\n}\n',
    });
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/c\.ts: Argument of type 'BlockRV' is not assignable to parameter of type 'LoopRV'/);
  }, 60_000);

  it("type-checks the printed naive and manual course schedules under noUncheckedIndexedAccess", () => {
    const naive = naiveSchedule(128);
    const manual = manualSchedule(128);
    const naiveText = naive.trace.show({ functionName: "naive" });
    const manualText = manual.trace.show({ functionName: "manual" });
    // The printed traces destructure getLoops results and pass them on directly.
    expect(naiveText).toContain("const [l1, l2, l3] = sch.getLoops(b0);");
    expect(manualText).toMatch(/const l\d+ = sch\.fuse\(l\d+, l\d+\);/);
    expect(typeErrors({ "naive.ts": naiveText, "manual.ts": manualText })).toEqual([]);
  }, 60_000);

  it("lets students destructure lookups and splits without casts, and types split by its factors", () => {
    const student = `import type { Schedule, LoopRV, ExprRV } from "@tessera/schedule";
export function tile(sch: Schedule): [LoopRV, LoopRV, LoopRV, LoopRV] {
  const block = sch.getBlock("gemm");
  const [i, j, k] = sch.getLoops(block);
  const [i0, i1] = sch.split(i, [null, 32]);
  const [j0, j1] = sch.split(j, [null, 32]);
  sch.reorder(i0, j0, i1, j1);
  const tiles: [ExprRV, ExprRV, ExprRV] = sch.samplePerfectTile(k, 3, 16);
  const three: [LoopRV, LoopRV, LoopRV] = sch.split(k, tiles);
  const n: number = three.length;
  const loops: LoopRV[] = sch.split(k, new Array<number>(n).fill(2));
  void loops;
  return [i0, j0, i1, j1];
}
`;
    const tooMany = `import type { Schedule } from "@tessera/schedule";
export function f(sch: Schedule): void {
  const [a, b, c] = sch.split(sch.getLoops(sch.getBlock("x"))[0], [null, 32]);
  void a; void b; void c;
}
`;
    const errors = typeErrors({ "student.ts": student, "too-many.ts": tooMany });
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/too-many\.ts: Tuple type '\[LoopRV, LoopRV\]' of length '2' has no element at index '2'/);
  }, 60_000);
});
