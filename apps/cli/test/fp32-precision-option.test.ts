/** `--fp32-precision` of `tessera build` and `tessera tune`: the float32 GEMMs rewritten as requested, a bad value refused by name. */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { matmul, printTVMScript } from "@tessera/ir";
import { describe, expect, it } from "vitest";
import { runCli } from "../src/index.js";
import { captureIO } from "./capture.js";

const dir = mkdtempSync(join(tmpdir(), "tessera-fp32-precision-"));
const file = join(dir, "matmul.py");
writeFileSync(file, printTVMScript(matmul(32, 32, 32).func, { funcName: "mm" }));

async function cli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = captureIO();
  const code = await runCli(args, io);
  return { code, out: io.out, err: io.err };
}

describe("--fp32-precision", () => {
  it("build: the function's GEMM is computed in tf32 only when asked (the C target has no tf32 and says so)", async () => {
    // "ieee" and no flag at all: the function as written.
    for (const precision of [["--fp32-precision", "ieee"], []]) {
      const ieee = await cli("build", file, "--target", "c", "--emit", "ir", ...precision);
      expect(ieee.code, ieee.err).toBe(0);
      expect(ieee.out).not.toContain("tf32");
    }
    for (const precision of ["tf32", "3xtf32"]) {
      const r = await cli("build", file, "--target", "c", "--emit", "ir", "--fp32-precision", precision);
      expect(r.code).toBe(2);
      expect(r.err).toContain("the intrinsic T.tf32_round has no C translation");
    }
  });

  it("build and tune refuse an unknown precision, naming the flag and the accepted values", async () => {
    for (const args of [
      ["build", file, "--target", "c", "--fp32-precision", "fp16"],
      ["tune", file, "--target", "c", "--trials", "1", "--work-dir", join(dir, "work"), "--fp32-precision", "fp16"],
    ]) {
      const r = await cli(...args);
      expect(r.code).toBe(2);
      expect(r.err).toContain('--fp32-precision: fp32 precision must be one of ieee, tf32, 3xtf32, got "fp16"');
    }
  });
});
