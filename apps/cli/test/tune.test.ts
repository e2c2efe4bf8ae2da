import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { gemmReluAdd, printTVMScript, vectorAdd } from "@tessera/ir";
import { queryBestRecord, scheduleFromRecord } from "@tessera/meta-schedule";
import { describe, expect, it } from "vitest";
import { type Command, commands, runCli } from "../src/index.js";
import { type BuildDeps, runBuild } from "../src/commands/build.js";
import { type TuneDeps, runTune } from "../src/commands/tune.js";
import { FakeDatabase, FakeReplayTrace, fakeMeasurer, fakeScheduleFnSpace } from "../../../packages/meta-schedule/test/tune/fakes.js";
import { splitAndBind, threadsOf, vectorAddLatency } from "../../../packages/meta-schedule/test/tune/workloads.js";
import { captureIO } from "./capture.js";

const dir = mkdtempSync(join(tmpdir(), "tessera-tune-cli-"));
function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const vadd = file("vadd.py", printTVMScript(vectorAdd(1024).func, { funcName: "vadd" }));
const gemm = file("gemm.py", printTVMScript(gemmReluAdd(32).func, { funcName: "gemm" }));

/** The CLI with the tune and build commands wired to fakes (no GPU, no real components). */
function fakeCli(opts: { gpu?: boolean; database?: FakeDatabase; progress?: Writable } = {}) {
  const database = opts.database ?? new FakeDatabase();
  const measurer = fakeMeasurer({ latencyOf: vectorAddLatency, buildError: (f) => (threadsOf(f) > 512 ? "too many threads" : undefined) });
  const tuneDeps: TuneDeps = {
    gpu: () => (opts.gpu === true ? { available: true } : { available: false, reason: "no CUDA driver" }),
    ...(opts.progress === undefined ? {} : { progressStream: opts.progress }),
    components: { strategy: () => new FakeReplayTrace(), costModel: "none", builder: measurer.builder, runner: measurer.runner, database },
    autoSpace: () => fakeScheduleFnSpace(splitAndBind),
    scheduleFnSpace: (fn) => fakeScheduleFnSpace((sch) => void fn(sch)),
  };
  const buildDeps: BuildDeps = { openDatabase: async () => database };
  const list: Command[] = commands.map((c) =>
    c.name === "tune" ? { ...c, run: (a, io) => runTune(a, io, tuneDeps) } : c.name === "build" ? { ...c, run: (a, io) => runBuild(a, io, buildDeps) } : c,
  );
  return {
    database,
    measurer,
    async run(...args: string[]) {
      const io = captureIO();
      const code = await runCli(args, io, list);
      return { code, out: io.out, err: io.err };
    },
  };
}

describe("tessera tune: arguments", () => {
  const cli = fakeCli();

  it("needs FILE, --target, --trials and --work-dir", async () => {
    const r = await cli.run("tune", vadd, "--target", "nvidia/h100");
    expect(r.code).toBe(2);
    expect(r.err).toContain("usage: tessera tune FILE --target NAME --trials N --work-dir DIR");
  });

  it("names the known targets for an unknown one", async () => {
    const r = await cli.run("tune", vadd, "--target", "nvidia/gtx-480", "--trials", "8", "--work-dir", dir, "--dry-run");
    expect(r.code).toBe(2);
    expect(r.err).toBe(
      'tessera: --target: unknown target "nvidia/gtx-480"; known targets: nvidia/tesla-t4, nvidia/a100, nvidia/h100, nvidia/h200, cuda, c, llvm, webgpu, metal, apple/m1-gpu, apple/m2-gpu\n',
    );
  });

  it("rejects bad numbers, strategies and spaces", async () => {
    const base = [vadd, "--target", "nvidia/h100", "--work-dir", dir, "--dry-run"];
    expect((await cli.run("tune", ...base, "--trials", "0")).err).toContain("--trials expects a positive integer, got '0'");
    expect((await cli.run("tune", ...base, "--trials", "ten")).err).toContain("--trials expects a positive integer, got 'ten'");
    expect((await cli.run("tune", ...base, "--trials", "8", "--strategy", "annealing")).err).toContain(
      "--strategy must be one of evolutionary, replay-trace, got 'annealing'",
    );
    expect((await cli.run("tune", ...base, "--trials", "8", "--seed", "1.5")).err).toContain("--seed expects a non-negative integer, got '1.5'");
    expect((await cli.run("tune", ...base, "--trials", "8", "--space", "space.json")).err).toContain("--space must be 'auto' or a .ts/.js file");
    const missing = await cli.run("tune", ...base, "--trials", "8", "--space", join(dir, "nope.ts"));
    expect(missing.code).toBe(2);
    expect(missing.err).toContain("nope.ts: no such file");
    const noExport = await cli.run("tune", ...base, "--trials", "8", "--space", file("empty-space.ts", "export const x = 1;\n"));
    expect(noExport.err).toContain("the file must export a schedule function, e.g. 'export default (sch) => { … }' (found exports: x)");
    expect((await cli.run("tune", ...base, "--trials", "8", "--bogus")).err).toContain("Unknown option '--bogus'");
    expect((await cli.run("tune", ...base, "--trials", "8", "--search-workers", "1.5")).err).toContain(
      "--search-workers expects a non-negative integer, got '1.5'",
    );
    expect((await cli.run("tune", ...base, "--trials", "8", "--search-workers", "two")).err).toContain(
      "--search-workers expects a non-negative integer, got 'two'",
    );
  });

  it("takes --search-workers (0 included) and --overlap, and lists them in its help", async () => {
    const workDir = mkdtempSync(join(dir, "workers-"));
    const tuned = await cli.run(
      "tune",
      vadd,
      "--target",
      "nvidia/h100",
      "--trials",
      "4",
      "--work-dir",
      workDir,
      "--dry-run",
      "--search-workers",
      "0",
      "--overlap",
    );
    expect(tuned.code, tuned.err).toBe(0);
    const help = (await cli.run("tune", "--help")).out.replace(/\s+/g, " ");
    expect(help).toContain("--search-workers N");
    expect(help).toContain("(default: cores - 1)");
    expect(help).toContain("--overlap");
  });

  it("rejects a bad --gpus list, and --gpus for the CPU target", async () => {
    const base = [vadd, "--target", "nvidia/h100", "--trials", "8", "--work-dir", dir, "--dry-run"];
    expect((await cli.run("tune", ...base, "--gpus", "0,0")).err).toBe("tessera: --gpus names GPU 0 twice ('0,0')\n");
    expect((await cli.run("tune", ...base, "--gpus", "0,x")).err).toBe("tessera: --gpus expects a GPU number (0, 1, …), got 'x'\n");
    const cpu = await cli.run("tune", vadd, "--target", "c", "--trials", "8", "--work-dir", dir, "--gpus", "0");
    expect(cpu.code).toBe(2);
    expect(cpu.err).toContain("--gpus starts GPU workers; the CPU target c is measured on this machine");
  });

  it("suggests --dry-run when there is no GPU", async () => {
    const r = await cli.run("tune", vadd, "--target", "nvidia/h100", "--trials", "8", "--work-dir", dir);
    expect(r.code).toBe(2);
    expect(r.err).toBe("tessera: no GPU to measure on here (no CUDA driver); use --dry-run to tune with the simulated runner\n");
  });

  it("reports a file that does not parse with its name and line", async () => {
    const bad = file("bad.py", '@T.prim_func\ndef main(A: T.Buffer((4,), "float32")):\n    T.frobnicate()\n');
    const r = await cli.run("tune", bad, "--target", "nvidia/h100", "--trials", "8", "--work-dir", dir, "--dry-run");
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^tessera: .*bad\.py:\d+/);
    expect(r.err).not.toContain("    at ");
  });
});

/** A stream collecting what is written to it (not a terminal: plain progress lines). */
function sink(): Writable & { text: string } {
  const s = new Writable({
    write(chunk, _e, done) {
      s.text += String(chunk);
      done();
    },
  }) as Writable & { text: string };
  s.text = "";
  return s;
}

describe("tessera tune --dry-run, then tessera build --database", () => {
  it("a function picked with --func is picked in the build command it suggests", async () => {
    const workDir = join(dir, "work-func");
    const cli = fakeCli();
    const r = await cli.run("tune", vadd, "--func", "vadd", "--target", "nvidia/h100", "--trials", "8", "--work-dir", workDir, "--dry-run");
    expect(r.code).toBe(0);
    const hint = /build it with: tessera (build .*)$/m.exec(r.out)?.[1];
    expect(hint).toBe(`build ${vadd} --target nvidia/h100 --database ${workDir} --func vadd`);
    const built = await cli.run(...hint!.split(" "));
    expect(built.err).toBe("");
    expect(built.code).toBe(0);
    // Records measured for the H100 are not applied to another target: the error names theirs.
    const elsewhere = await cli.run("build", vadd, "--func", "vadd", "--target", "nvidia/tesla-t4", "--database", workDir);
    expect(elsewhere.code).toBe(2);
    expect(elsewhere.err).toMatch(
      /the tuning records of function vadd of .* were measured for nvidia\/h100, not nvidia\/tesla-t4; build with --target nvidia\/h100, or tune for nvidia\/tesla-t4/,
    );
  });

  it("tunes, prints the summary, writes the curve, and build applies the best record", async () => {
    const workDir = join(dir, "work");
    const progress = sink();
    const cli = fakeCli({ progress });
    const r = await cli.run(
      "tune",
      vadd,
      "--target",
      "nvidia/h100",
      "--trials",
      "24",
      "--trials-per-iter",
      "8",
      "--work-dir",
      workDir,
      "--seed",
      "3",
      "--dry-run",
    );
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    // A dry run estimates: a header says the runner is simulated, and no figure reads as a measurement
    // (regression: "Trial #1: GFLOPs: … Time: … us" and "Best vadd: … us" read as measurements).
    expect(r.out).toMatch(/^Dry run: the runner is simulated \(no GPU\); every time and GFLOPS figure below is an estimate/);
    expect(r.out).toMatch(
      /\n ID \| Name \| FLOP \| Weight \| Est\. Speed \(GFLOPS\) \| Est\. Latency \(us\) \| Est\. Weighted Latency \(us\) \| Trials \| Done \n-+\n  0 \| vadd \| 1024 \|      1 \| +\d+\.\d{4} \| +\d+\.\d{4} \| +\d+\.\d{4} \|     24 \|    Y \n-+\nTotal trials: 24\nTotal latency \(us, estimated\): [\d.]+\n/,
    );
    const best = queryBestRecord(cli.database, vectorAdd(1024).func)!;
    const bestUs = (best.runSecs![0]! * 1e6).toFixed(4);
    const bestGflops = (1024 / best.runSecs![0]! / 1e9).toFixed(4);
    expect(r.out).toContain(
      `Best vadd (estimated): ${bestUs} us (${bestGflops} GFLOPS); build it with: tessera build ${vadd} --target nvidia/h100 --database ${workDir}`,
    );
    expect(progress.text).toMatch(/^\[Task #0: vadd\] Trial #1: GFLOPs \(estimated\): [\d.]+\. Time \(estimated\): [\d.]+ us\. Best GFLOPs \(estimated\): /m);
    expect(progress.text).not.toMatch(/GFLOPs: |Time: /);
    expect(progress.text).toContain(`progress: 24/24 trials (100.0%), best (estimated) ${bestGflops} GFLOPS (${bestUs} us)`);
    expect(cli.database.size()).toBe(24);
    expect(readFileSync(join(workDir, "tuning-curve.svg"), "utf8")).toContain("evolutionary, seed 3");
    expect(existsSync(join(workDir, "tuning-history.json"))).toBe(true);
    expect(readFileSync(join(workDir, "logs", "task_0_vadd.log"), "utf8")).toContain("[Task #0: vadd] Trial #24: ");
    expect(r.out).toContain(`${join(workDir, "logs")})`);

    const built = await cli.run("build", vadd, "--target", "nvidia/h100", "--database", workDir);
    expect(built.err).toBe("");
    expect(built.code).toBe(0);
    // The CUDA of the best record: its threads per block.
    expect(built.out).toContain(`__launch_bounds__(${threadsOf(scheduleFromRecord(best).func)})`);
  });

  it("tunes with a space from a TypeScript file", async () => {
    const space = file(
      "space.ts",
      [
        'import type { Schedule } from "@tessera/schedule";',
        "export default function (sch: Schedule): void {",
        '  const [i] = sch.getLoops(sch.getBlock("C"));',
        "  const [outer, inner] = sch.samplePerfectTile(i, 2, 64);",
        "  const [bx, tx] = sch.split(i, [outer, inner]);",
        '  sch.bind(bx, "blockIdx.x");',
        '  sch.bind(tx, "threadIdx.x");',
        "}",
        "",
      ].join("\n"),
    );
    const cli = fakeCli({ progress: sink() });
    const r = await cli.run("tune", vadd, "--target", "nvidia/h100", "--trials", "8", "--work-dir", join(dir, "work-space"), "--space", space, "--dry-run");
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    // The file's space keeps thread blocks at 64 threads or fewer (the default space of the fakes goes to 1024).
    const threads = cli.database.getAllTuningRecords().map((rec) => threadsOf(scheduleFromRecord(rec).func));
    expect(threads).toHaveLength(8);
    expect(Math.max(...threads)).toBeLessThanOrEqual(64);
  });

  it("build --database: clear errors for a missing directory, a workload without records, and --trace with --database", async () => {
    const cli = fakeCli();
    const missing = await cli.run("build", vadd, "--target", "nvidia/h100", "--database", join(dir, "no-such-dir"));
    expect(missing.code).toBe(2);
    expect(missing.err).toContain("no-such-dir: no such directory");
    const none = await cli.run("build", gemm, "--target", "nvidia/h100", "--database", dir);
    expect(none.code).toBe(2);
    expect(none.err).toMatch(/--database .*: no tuning record for function gemm of .*gemm\.py \(workload [0-9a-f]+\); tune it first: tessera tune/);
    const both = await cli.run("build", vadd, "--target", "nvidia/h100", "--database", dir, "--trace", "t.json");
    expect(both.err).toContain("give either --trace or --database, not both");
  });
});
