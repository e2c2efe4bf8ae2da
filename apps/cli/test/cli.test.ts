import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { CUDA_TARGET_NAMES } from "@tessera/codegen";
import { STRATEGY_NAMES } from "@tessera/meta-schedule";
import { describe, expect, it } from "vitest";
import { type CliIO, commands, runCli } from "../src/index.js";
import { GPU_TARGETS, STRATEGIES } from "../src/commands/specs.js";
import { captureIO } from "./capture.js";

function longestLine(text: string): number {
  return Math.max(...text.split("\n").map((l) => l.length));
}

describe("tessera CLI dispatcher", () => {
  it("--help lists every command with its summary and exits 0", async () => {
    const io = captureIO();
    expect(await runCli(["--help"], io)).toBe(0);
    expect(io.err).toBe("");
    expect(io.out).toMatch(/^Usage: tessera <command>/);
    const lines = io.out.split("\n");
    for (const c of commands) expect(lines.some((l) => l.startsWith(`  ${c.name}  `) && l.includes(c.summary.split(" ").slice(0, 3).join(" ")))).toBe(true);
    expect(commands.map((c) => c.name)).toEqual(["print", "equal", "run", "apply", "simulate", "build", "tune", "queue", "worker"]);
  });

  it("no arguments prints help to stderr and exits 2", async () => {
    const io = captureIO();
    expect(await runCli([], io)).toBe(2);
    expect(io.err).toContain("Usage: tessera");
  });

  it("unknown command is a user error (exit 2)", async () => {
    const io = captureIO();
    expect(await runCli(["frobnicate"], io)).toBe(2);
    expect(io.err).toBe("tessera: unknown command 'frobnicate' (see 'tessera --help')\n");
  });

  it("wrong arity and bad flags are user errors (exit 2)", async () => {
    for (const argv of [["print"], ["equal", "a.py"], ["run", "f.py", "--seed", "x"], ["run", "f.py", "--bogus"]]) {
      const io = captureIO();
      expect(await runCli(argv, io)).toBe(2);
      expect(io.err).toMatch(/^tessera: /);
    }
  });
});

describe("help wraps to the terminal (regression: descriptions were padded to column 160, lines of 290 characters)", () => {
  const helpCalls = [["--help"], ...commands.map((c) => [c.name, "--help"])];

  it("at most 80 columns when the output is not a terminal", async () => {
    for (const argv of helpCalls) {
      const io = captureIO();
      expect(await runCli(argv, io)).toBe(0);
      expect(longestLine(io.out), argv.join(" ")).toBeLessThanOrEqual(80);
    }
  });

  it("at most the terminal's width, wide or narrow", async () => {
    for (const columns of [50, 120]) {
      for (const argv of helpCalls) {
        const io: CliIO & { out: string } = { ...captureIO(), stdoutIsTTY: true, stdoutColumns: columns };
        const out: string[] = [];
        expect(await runCli(argv, { ...io, stdout: (t) => out.push(t) })).toBe(0);
        expect(longestLine(out.join("")), `${argv.join(" ")} at ${columns}`).toBeLessThanOrEqual(columns);
      }
    }
  });
});

describe("each subcommand's --help", () => {
  it("lists its usage, every option it accepts, and its exit codes", async () => {
    for (const c of commands) {
      const io = captureIO();
      expect(await runCli([c.name, "--help"], io)).toBe(0);
      const flat = io.out.replace(/\s+/g, " ");
      expect(flat).toContain(`Usage: tessera ${c.name} `);
      for (const o of c.spec.options) expect(flat, `${c.name} --${o.name}`).toContain(`--${o.name}`);
      expect(io.out).toContain("Exit codes:");
      for (const [code] of c.spec.exitCodes) expect(io.out).toMatch(new RegExp(`^  ${code} `, "m"));
    }
  });

  it("tune --help lists --func, --trials-per-iter and --redis with defaults (regression: they were missing)", async () => {
    const io = captureIO();
    expect(await runCli(["tune", "--help"], io)).toBe(0);
    const flat = io.out.replace(/\s+/g, " ");
    expect(flat).toContain("--func NAME");
    expect(flat).toContain("--trials-per-iter N candidates measured per search iteration (default: 64)");
    expect(flat).toContain("--redis URL");
    expect(flat).toContain("--strategy NAME the search strategy: evolutionary or replay-trace (default: evolutionary)");
    expect(flat).toContain("Targets: CUDA: nvidia/tesla-t4, nvidia/a100, nvidia/h100, nvidia/h200, cuda");
    expect(flat).toContain("C (native code for the host CPU): c, llvm, llvm -mcpu=NAME");
    expect(flat).toContain("1 no candidate ran successfully");
  });

  it("the option lists of help are the options the parser accepts", async () => {
    const io = captureIO();
    // --trials-per-iter is declared once (the spec) for both: a typo there is caught by the parser.
    expect(await runCli(["tune", "f.py", "--target", "c", "--trials", "1", "--work-dir", "w", "--trials-per-itr", "2"], io)).toBe(2);
    expect(io.err).toContain("Unknown option '--trials-per-itr'");
  });

  it("hard-coded lists match the packages they describe", () => {
    expect([...GPU_TARGETS]).toEqual([...CUDA_TARGET_NAMES]);
    expect([...STRATEGIES]).toEqual([...STRATEGY_NAMES]);
  });
});

describe("startup imports no compiler package (commands load lazily)", () => {
  const src = resolve(dirname(fileURLToPath(import.meta.url)), "../src");

  /** Every bare module specifier statically imported by `file` and the relative modules it imports. */
  function staticImports(file: string, seen = new Set<string>()): Set<string> {
    const bare = new Set<string>();
    if (seen.has(file)) return bare;
    seen.add(file);
    const text = readFileSync(file, "utf8");
    for (const m of text.matchAll(/^(?:import|export)(?!\s+type\b)[^;]*?from\s+"([^"]+)";/gms)) {
      const spec = m[1]!;
      if (spec.startsWith(".")) {
        for (const inner of staticImports(join(dirname(file), spec.replace(/\.js$/, ".ts")), seen)) bare.add(inner);
      } else bare.add(spec);
    }
    return bare;
  }

  it("main.ts reaches only picocolors before a command runs", () => {
    const reached = [...staticImports(join(src, "main.ts"))].sort();
    expect(reached).toEqual(["picocolors"]);
  });
});
