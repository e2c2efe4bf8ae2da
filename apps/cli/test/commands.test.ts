import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gemmReluAdd, parseTVMScript, printTVMScript, runPrimFunc, vectorAdd, entryFunctionName } from "@tessera/ir";
import { describe, expect, it } from "vitest";
import { runCli } from "../src/index.js";
import { captureIO } from "./capture.js";

const dir = mkdtempSync(join(tmpdir(), "tessera-cli-"));
function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const VADD = `
@T.prim_func
def vadd(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32"), C: T.Buffer((8,), "float32")):
    for i in range(8):
        with T.block("C"):
            vi = T.axis.spatial(8, i)
            C[vi] = A[vi] + B[vi]
`;

describe("tessera print", () => {
  it("prints canonical TVMScript that parses back to the same text", async () => {
    const io = captureIO();
    expect(await runCli(["print", file("vadd.py", VADD)], io)).toBe(0);
    expect(io.out).toContain('with T.block("C"):');
    expect(io.out).toContain("T.reads(A[vi], B[vi])");
    const again = captureIO();
    expect(await runCli(["print", file("vadd2.py", io.out)], again)).toBe(0);
    expect(again.out).toBe(io.out);
  });

  it("prints today's TVM spelling with --dialect tvm, which reads back to the same program", async () => {
    const tvm = captureIO();
    expect(await runCli(["print", file("vadd-tvm.py", VADD), "--dialect", "tvm"], tvm)).toBe(0);
    expect(tvm.out).toContain("@T.prim_func(s_tir=True)");
    expect(tvm.out).toContain('with T.sblock("C"):');
    const course = captureIO();
    expect(await runCli(["print", file("vadd-tvm2.py", tvm.out)], course)).toBe(0);
    const original = captureIO();
    expect(await runCli(["print", file("vadd-course.py", VADD)], original)).toBe(0);
    expect(course.out).toBe(original.out);
    const bad = captureIO();
    expect(await runCli(["print", file("vadd-bad.py", VADD), "--dialect", "relax"], bad)).toBe(2);
    expect(bad.err).toContain('--dialect must be course or tvm, got "relax"');
  });

  it("reports a syntax error with file, line, column and a caret (exit 2)", async () => {
    const bad = file("bad.py", VADD.replace("C[vi] = A[vi] + B[vi]", "C[vi] = A[vi] + Z[vi]"));
    const io = captureIO();
    expect(await runCli(["print", bad], io)).toBe(2);
    expect(io.err).toMatch(/bad\.py:7:29: error: .*Z/);
    expect(io.err).toContain("^");
  });

  it("reports a missing file (exit 2)", async () => {
    const io = captureIO();
    expect(await runCli(["print", join(dir, "nope.py")], io)).toBe(2);
    expect(io.err).toContain("nope.py: no such file");
  });
});

describe("tessera equal", () => {
  it("ignores names and reports the first difference", async () => {
    const a = file("a.py", VADD);
    const renamed = file("b.py", VADD.replaceAll("vi", "v0").replace("def vadd", "def other"));
    const different = file("c.py", VADD.replace("A[vi] + B[vi]", "A[vi] * B[vi]"));
    const io = captureIO();
    expect(await runCli(["equal", a, renamed], io)).toBe(0);
    expect(io.out).toContain("structurally equal");
    const io2 = captureIO();
    expect(await runCli(["equal", a, different], io2)).toBe(1);
    expect(io2.out).toContain("differ");
    expect(io2.out).toContain("A[vi] + B[vi] vs A[vi] * B[vi]");
    const io3 = captureIO();
    expect(await runCli(["equal", a, renamed, "--names"], io3)).toBe(1);
  });
});

describe("tessera run", () => {
  it("runs the workload and prints the output it computed", async () => {
    const func = gemmReluAdd(16).func;
    const path = file("gemm.py", printTVMScript(func));
    const io = captureIO();
    expect(await runCli(["run", path, "--seed", "7"], io)).toBe(0);
    expect(io.out).toContain("seed 7");
    expect(io.out).toMatch(/D \(written\): 16×16 float32/);
    expect(io.out).not.toMatch(/A \(written\)/);
  });

  it("is deterministic for a seed and differs across seeds", async () => {
    const path = file("vadd3.py", printTVMScript(vectorAdd(32).func));
    const outs: string[] = [];
    for (const seed of ["1", "1", "2"]) {
      const io = captureIO();
      expect(await runCli(["run", path, "--seed", seed], io)).toBe(0);
      outs.push(io.out.replace(/seed \d+/, ""));
    }
    expect(outs[0]).toBe(outs[1]);
    expect(outs[0]).not.toBe(outs[2]);
  });

  it("reports an out-of-bounds access as a user error", async () => {
    const oob = file("oob.py", VADD.replace("C[vi] = A[vi] + B[vi]", "C[vi] = A[vi + 1] + B[vi]"));
    const io = captureIO();
    expect(await runCli(["run", oob], io)).toBe(2);
    expect(io.err).toContain("out-of-bounds");
    expect(io.err).toContain("A");
  });

  it("agrees with running the parsed function directly", () => {
    const mod = parseTVMScript(VADD);
    expect(entryFunctionName(mod)).toBe("vadd");
    const args = [new Float32Array([1, 2, 3, 4, 5, 6, 7, 8]), new Float32Array(8).fill(1), new Float32Array(8)];
    runPrimFunc(mod.functions.get("vadd")!, args);
    expect(Array.from(args[2]!)).toEqual([2, 3, 4, 5, 6, 7, 8, 9]);
  });
});
