/** `tessera tune --target c` with the real CPU components (gcc, the runner's child), then `tessera build --target c --database`. */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ops, printTVMScript } from "@tessera/ir";
import { describe, expect, it } from "vitest";
import { type Command, commands, runCli } from "../src/index.js";
import { type TuneDeps, defaultTuneDeps, runTune } from "../src/commands/tune.js";
import { captureIO } from "./capture.js";

/** A loop of a split (`i_0`, `j_1`, `k_0`, …) in the generated C. */
const SPLIT_LOOP = /for \(int32_t [ijk]_\d/;

const dir = mkdtempSync(join(tmpdir(), "tessera-tune-cpu-"));
const file = join(dir, "matmul.py");
writeFileSync(file, printTVMScript(ops.matmul(32, 32, 32).func, { funcName: "matmul" }));

// The real components, but the progress lines go to the command's (captured) stderr, not the
// process's: tests print nothing of their own.
const { progressStream: _processStderr, ...realDeps } = defaultTuneDeps;
const tuneDeps: TuneDeps = realDeps;
const list: Command[] = commands.map((c) => (c.name === "tune" ? { ...c, run: (a, io) => runTune(a, io, tuneDeps) } : c));

async function run(...args: string[]) {
  const io = captureIO();
  const code = await runCli(args, io, list);
  if (process.env.TESSERA_TEST_VERBOSE === "1") console.log(`[tessera ${args[0]}] exit ${code}\n${io.err}`);
  return { code, out: io.out, err: io.err };
}

describe("tessera tune / build for the CPU target", () => {
  const workDir = join(dir, "work");

  it("tunes on this machine without a GPU, and build --database prints the best record's C", async () => {
    const tuned = await run("tune", file, "--target", "c", "--trials", "4", "--trials-per-iter", "4", "--work-dir", workDir, "--seed", "2");
    expect(tuned.err).not.toMatch(/no GPU/);
    expect(tuned.code).toBe(0);
    expect(tuned.err).toContain("progress: 4/4 trials");
    expect(tuned.out).toContain(`build it with: tessera build ${file} --target c --database ${workDir}`);
    const built = await run("build", file, "--target", "c", "--database", workDir);
    expect(built.code).toBe(0);
    // The tuned program: MultiLevelTiling's loops, not the plain i, j, k nest. Which split loops
    // survive depends on the tile sizes the measurements picked (a factor of 1 leaves no loop), so
    // any split loop will do, and the C must differ from the untuned function's.
    expect(built.out).toMatch(SPLIT_LOOP);
    const untuned = await run("build", file, "--target", "c");
    expect(untuned.code).toBe(0);
    expect(untuned.out).not.toMatch(SPLIT_LOOP);
    expect(built.out).not.toBe(untuned.out);
    expect(built.out).toContain("TESSERA_EXPORT int32_t matmul_packed(void** args)");
  }, 120_000);

  it("build --target llvm applies the records tuned for c (one C backend, two names)", async () => {
    const asC = await run("build", file, "--target", "c", "--database", workDir);
    const asLlvm = await run("build", file, "--target", "llvm", "--database", workDir);
    expect(asLlvm.code).toBe(0);
    // The same tuned program; only the header's target name differs.
    expect(asLlvm.out).toMatch(SPLIT_LOOP);
    expect(asLlvm.out.replace('target "llvm"', 'target "c"')).toBe(asC.out);
  }, 60_000);

  it("refuses --dry-run for a CPU target, saying why", async () => {
    const r = await run("tune", file, "--target", "llvm", "--trials", "4", "--work-dir", join(dir, "dry"), "--dry-run");
    expect(r.code).toBe(2);
    expect(r.err).toContain("--dry-run simulates a GPU; the CPU target llvm is measured on this machine");
  });
});
