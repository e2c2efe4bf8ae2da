import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gemmReluAdd, parseTVMScript, printTVMScript, structuralEqual } from "@tessera/ir";
import { Schedule } from "@tessera/schedule";
import { describe, expect, it } from "vitest";
import { runCli } from "../src/index.js";
import { captureIO } from "./capture.js";

const dir = mkdtempSync(join(tmpdir(), "tessera-apply-"));
function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const FUNC = gemmReluAdd(64).func;

function scheduled(): Schedule {
  const sch = new Schedule(FUNC, { seed: 3 });
  const gemm = sch.getBlock("gemm");
  const [i, j] = sch.getLoops(gemm);
  const [i0, i1] = sch.split(i!, sch.samplePerfectTile(i!, 2, 16));
  const [j0, j1] = sch.split(j!, [null, 16]);
  sch.reorder(i0!, j0!, i1!, j1!);
  sch.computeInline(sch.getBlock("relu"));
  return sch;
}

describe("tessera apply", () => {
  it("replays a trace on a TVMScript file and prints the scheduled function", async () => {
    const sch = scheduled();
    const program = file("gemm.py", printTVMScript(FUNC, { funcName: "gemm_relu_add" }));
    const trace = file("trace.json", JSON.stringify(sch.trace, null, 2));
    const io = captureIO();
    expect(await runCli(["apply", program, "--trace", trace], io)).toBe(0);
    expect(io.err).toBe("");
    expect(io.out).toContain("def gemm_relu_add(");
    const [result] = [...parseTVMScript(io.out).functions.values()];
    expect(structuralEqual(result!, sch.func)).toBe(true);
    // TVM's array format works as well.
    const tvm = file("trace-tvm.json", JSON.stringify(sch.trace.toTVMJSON()));
    const io2 = captureIO();
    expect(await runCli(["apply", program, "--trace", tvm, "--func", "gemm_relu_add"], io2)).toBe(0);
    expect(io2.out).toBe(io.out);
  });

  it("names the failing step with the rendered ScheduleError (exit 2)", async () => {
    const program = file("gemm2.py", printTVMScript(FUNC));
    const trace = file(
      "bad-step.json",
      JSON.stringify({
        format: "tessera-trace",
        version: 1,
        instructions: [
          { kind: "GetBlock", inputs: [], attrs: ["gemm", "main"], outputs: ["b0"] },
          { kind: "GetLoops", inputs: ["b0"], attrs: [], outputs: ["l1", "l2", "l3"] },
          { kind: "Fuse", inputs: ["l1", "l3"], attrs: [true], outputs: ["l4"] },
        ],
        decisions: [],
      }),
    );
    const io = captureIO();
    expect(await runCli(["apply", program, "--trace", trace], io)).toBe(2);
    expect(io.out).toBe("");
    expect(io.err).toContain("bad-step.json: trace replay failed at step 2 (Fuse):");
    expect(io.err).toContain("An error occurred in the schedule primitive 'fuse'");
    expect(io.err).toContain("The IR with diagnostic is:");
    expect(io.err).not.toContain("internal error");
  });

  it("names the problem of a malformed trace file (exit 2)", async () => {
    const program = file("gemm3.py", printTVMScript(FUNC));
    const bad = file(
      "bad.json",
      JSON.stringify({ format: "tessera-trace", version: 1, instructions: [{ kind: "GetBlock", inputs: [], attrs: "gemm", outputs: ["b0"] }], decisions: [] }),
    );
    const io = captureIO();
    expect(await runCli(["apply", program, "--trace", bad], io)).toBe(2);
    expect(io.err).toBe(`tessera: ${bad}: malformed trace: instructions[0].attrs: Invalid input: expected array, received string\n`);
    const notJson = file("nojson.json", "{");
    const io2 = captureIO();
    expect(await runCli(["apply", program, "--trace", notJson], io2)).toBe(2);
    expect(io2.err).toMatch(/nojson\.json: malformed trace: not valid JSON/);
    const io3 = captureIO();
    expect(await runCli(["apply", program, "--trace", join(dir, "missing.json")], io3)).toBe(2);
    expect(io3.err).toContain("missing.json: no such file");
  });

  it("reads a trace as the text trace.show() prints (regression: 'malformed trace: not valid JSON')", async () => {
    const sch = scheduled();
    const program = file("gemm5.py", printTVMScript(FUNC, { funcName: "gemm_relu_add" }));
    const json = file("trace5.json", JSON.stringify(sch.trace));
    const text = file("trace_submission.ts", `/** pasted from sch.trace.show() */\n${sch.trace.show()}`);
    const fromJson = captureIO();
    expect(await runCli(["apply", program, "--trace", json], fromJson)).toBe(0);
    const fromText = captureIO();
    expect(await runCli(["apply", program, "--trace", text], fromText)).toBe(0);
    expect(fromText.err).toBe("");
    expect(fromText.out).toBe(fromJson.out);
  });

  it("names the file, line and column of a text trace it cannot read or replay (exit 2)", async () => {
    const program = file("gemm6.py", printTVMScript(FUNC));
    const unknown = file("unknown.ts", 'const b0 = sch.getBlock("gemm");\nconst x = sch.frobnicate(b0);\n');
    const io = captureIO();
    expect(await runCli(["apply", program, "--trace", unknown], io)).toBe(2);
    expect(io.err).toBe(`tessera: ${unknown}:2:11: unknown schedule method 'frobnicate' (a trace calls schedule primitives such as getBlock, split, bind)\n`);
    const failing = file("failing.ts", 'const b0 = sch.getBlock("nope");\n');
    const io2 = captureIO();
    expect(await runCli(["apply", program, "--trace", failing], io2)).toBe(2);
    expect(io2.err).toMatch(new RegExp(`^tessera: ${failing.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}:1:12: sch\\.getBlock\\(…\\) failed:`));
    const empty = file("empty.ts", "// nothing\n");
    const io3 = captureIO();
    expect(await runCli(["apply", program, "--trace", empty], io3)).toBe(2);
    expect(io3.err).toContain("empty.ts: no schedule call in it");
  });

  it("requires --trace", async () => {
    const io = captureIO();
    expect(await runCli(["apply", file("gemm4.py", printTVMScript(FUNC))], io)).toBe(2);
    expect(io.err).toContain("usage: tessera apply FILE --trace TRACE [--func NAME]");
  });
});
