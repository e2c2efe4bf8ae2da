/**
 * What a run on the solution's stand-in may show: a message only in one of the fixed forms that
 * carry no information, under a known error name, never a stack or stderr.
 */
import { describe, expect, it } from "vitest";
import { describeErrorOnReference, describeExitOnReference } from "../src/grade/withheld-errors.js";
import type { FileRun } from "../src/sandbox/index.js";

const ON = "on the reference schedule (the solution's version of register-tiling stood in)";
const WITHHELD = `(the message is withheld because the task ran ${ON}: what your code throws or prints there could reveal the solution)`;
const IR = "# from tvm.script import tir as T\n@T.prim_func\ndef main(A: T.Buffer((2048, 2048)))";

function run(exit: FileRun["exit"], stderr = ""): FileRun {
  return { file: "gemm_relu_add.ts", load: { ok: true, exports: [] }, results: new Map(), exit, stdout: "", stderr, invalidMessages: 0, millis: 1 };
}

describe("errors of a run on the reference schedule", () => {
  it("show the starter's TODO error and the sandbox's refusals verbatim, without the stack", () => {
    const todo = "TODO(task 3): cooperativeFetching is not implemented yet";
    expect(
      describeErrorOnReference(
        "cooperativeFetching",
        "gemm_relu_add.ts",
        { name: "Error", message: todo, stack: "at cooperativeFetching (gemm_relu_add.ts:80:3)" },
        ON,
      ),
    ).toBe(`cooperativeFetching is not implemented yet (it still throws "${todo}")`);
    expect(
      describeErrorOnReference("writeCache", "gemm_relu_add.ts", { name: "ReferenceError", message: "process is not defined", stack: "at writeCache (x)" }, ON),
    ).toBe(`writeCache threw ReferenceError: process is not defined (the stack trace is withheld because the task ran ${ON})`);
    expect(
      describeErrorOnReference("writeCache", "gemm_relu_add.ts", { name: "MissingExport", message: "gemm_relu_add.ts does not export `writeCache`" }, ON),
    ).toBe("gemm_relu_add.ts does not export `writeCache`");
  });

  it("withhold any other message, a fixed form with more text after it, and a fixed form under a made-up error name", () => {
    for (const error of [
      { name: "Error", message: IR },
      { name: "Error", message: `TODO(task 3): cooperativeFetching is not implemented yet\n${IR}` },
      { name: "Error", message: `TODO(${IR})` },
      { name: "A_shared_localError", message: "process is not defined" },
      // Free text inside a refusal's form: a module name or an identifier chosen at run time.
      {
        name: "Error",
        message:
          'a submission may not load "A_shared_local": the grading sandbox has no modules but @tessera/ir, @tessera/schedule and the submission\'s own files',
      },
      { name: "ReferenceError", message: "A_shared_local is not defined" },
      { name: "Error", message: "TODO(task 3): A_shared_local is not implemented yet" },
      { name: "MissingExport", message: `gemm_relu_add.ts does not export \`${IR}\`` },
    ]) {
      expect(describeErrorOnReference("cooperativeFetching", "gemm_relu_add.ts", error, ON)).toBe(`cooperativeFetching did not complete ${WITHHELD}`);
    }
  });

  it("say why a run stopped in the grader's words, and withhold a crash's stderr", () => {
    expect(describeExitOnReference("writeCache", run({ kind: "timeout", afterMs: 5000 }), { timeoutMs: 5000, heapMb: 256 }, ON)).toBe(
      "writeCache did not finish: it was stopped after the time limit of 5 s (an infinite loop?)",
    );
    const crashed = describeExitOnReference("writeCache", run({ kind: "crashed", code: 1, signal: undefined }, IR), { timeoutMs: 5000, heapMb: 256 }, ON);
    expect(crashed).toBe(`writeCache did not finish: the process crashed ${WITHHELD}`);
  });
});
