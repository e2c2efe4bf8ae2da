/**
 * The system C compiler: `$TESSERA_CC`, else `cc`. It compiles generated C into a shared library
 * with `-O3 -march=<target> -fopenmp`. OpenMP is probed once per compiler: where `-fopenmp` does
 * not link, a warning says so and libraries are built with `-fopenmp-simd` only (SIMD pragmas
 * kept, parallel loops serial).
 *
 * Libraries are cached on disk under `<cache>/c/<sha256>.so`, keyed by the source, the compiler's
 * identity and its flags; the generated `.c` file stays beside it (compile errors name it).
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { CCompileError, HostBackendUnavailableError } from "./errors.js";

export interface CCompilerInfo {
  /** The command, e.g. `cc`. */
  readonly command: string;
  /** First line of `--version`. */
  readonly version: string;
  readonly openmp: boolean;
  /** Why OpenMP is off (the probe's compiler output), when it is. */
  readonly openmpProblem?: string | undefined;
}

export interface CompiledLibrary {
  readonly path: string;
  readonly sourcePath: string;
  readonly cacheHit: boolean;
  readonly compileMs: number;
  readonly flags: readonly string[];
  readonly openmp: boolean;
}

export interface CompileCOptions {
  /** `-march=` value (default `native`). */
  readonly march?: string;
  /** Cache directory (default `$TESSERA_CACHE_DIR/c` or `<tmp>/tessera-cache/c`). */
  readonly cacheDir?: string;
  /** A basename hint for the files, e.g. the function's name. */
  readonly name?: string;
  /** The compiler command (default `cCompilerCommand()`). */
  readonly compiler?: string;
  /**
   * CPU seconds each compiler process may use (RLIMIT_CPU, through the shell's `ulimit -t`); past it the
   * compile fails with a `CCompileError` saying so. CPU time, not wall time: on a loaded machine a compile
   * that needs 1 s of CPU can wait a minute for a core. Default: no limit.
   */
  readonly cpuTimeLimitSec?: number;
}

/** The compiler's command line, run under a CPU-time limit when one is given (a POSIX shell's `ulimit -t`). */
function limitedCommand(command: readonly string[], cpuTimeLimitSec: number | undefined): string[] {
  if (cpuTimeLimitSec === undefined) return [...command];
  if (!Number.isInteger(cpuTimeLimitSec) || cpuTimeLimitSec < 1)
    throw new RangeError(`compileC: cpuTimeLimitSec must be a positive integer, got ${cpuTimeLimitSec}`);
  // The soft limit: SIGXCPU, which gcc's driver reports by name (the hard limit's SIGKILL reads as any kill).
  return ["/bin/sh", "-c", `ulimit -S -t ${cpuTimeLimitSec} && exec "$0" "$@"`, ...command];
}

export function defaultCCacheDir(): string {
  const env = process.env.TESSERA_CACHE_DIR;
  return join(env !== undefined && env.length > 0 ? env : join(tmpdir(), "tessera-cache"), "c");
}

export function cCompilerCommand(): string {
  const env = process.env.TESSERA_CC;
  return env !== undefined && env.length > 0 ? env : "cc";
}

const probes = new Map<string, Promise<CCompilerInfo>>();

const OPENMP_PROBE = `#include <omp.h>
int tessera_probe(void) { int n = 0;
#pragma omp parallel reduction(+ : n)
  n += 1;
  return n + omp_get_max_threads(); }
`;

/** The compiler's identity and whether OpenMP works with it (probed once per process). */
export function probeCCompiler(command = cCompilerCommand()): Promise<CCompilerInfo> {
  let p = probes.get(command);
  if (p === undefined) {
    p = probe(command);
    probes.set(command, p);
  }
  return p;
}

async function probe(command: string): Promise<CCompilerInfo> {
  const version = await execa(command, ["--version"], { reject: false });
  if (version.failed || version.exitCode !== 0) {
    throw new HostBackendUnavailableError(
      `no C compiler: \`${command} --version\` failed (${version.shortMessage}); install gcc (apt-get install gcc) or set TESSERA_CC`,
    );
  }
  const dir = join(tmpdir(), `tessera-cc-probe-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  try {
    const src = join(dir, "probe.c");
    writeFileSync(src, OPENMP_PROBE);
    const r = await execa(command, ["-shared", "-fPIC", "-fopenmp", src, "-o", join(dir, "probe.so")], { reject: false, all: true });
    const firstLine = version.stdout.split("\n")[0] ?? command;
    if (r.exitCode === 0) return { command, version: firstLine, openmp: true };
    const problem = (r.all ?? r.shortMessage).trim();
    process.emitWarning(
      `${command} cannot build OpenMP code (-fopenmp failed: ${problem.split("\n")[0]}); parallel loops of the C target run serially. ` +
        "Install libgomp (apt-get install libgomp1) or use a compiler with OpenMP.",
      { code: "TESSERA_NO_OPENMP" },
    );
    return { command, version: firstLine, openmp: false, openmpProblem: problem };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function cFlags(info: CCompilerInfo, march: string): string[] {
  // -fno-math-errno: generated code never reads errno, and setting it keeps sqrtf & co. from vectorizing.
  return [
    "-O3",
    `-march=${march}`,
    "-std=gnu11",
    "-fno-math-errno",
    "-shared",
    "-fPIC",
    info.openmp ? "-fopenmp" : "-fopenmp-simd",
    "-Wall",
    "-Wno-unused-variable",
    "-Wno-unknown-pragmas",
  ];
}

/** Compiles `source` to a shared library (or finds it in the cache). */
export async function compileC(source: string, opts: CompileCOptions = {}): Promise<CompiledLibrary> {
  const info = await probeCCompiler(opts.compiler ?? cCompilerCommand());
  const flags = cFlags(info, opts.march ?? "native");
  const key = createHash("sha256")
    .update(info.command)
    .update("\0")
    .update(info.version)
    .update("\0")
    .update(flags.join(" "))
    .update("\0")
    .update(source)
    .digest("hex")
    .slice(0, 32);
  const dir = opts.cacheDir ?? defaultCCacheDir();
  mkdirSync(dir, { recursive: true });
  const base = `${(opts.name ?? "module").replace(/[^A-Za-z0-9_]/g, "_")}-${key}`;
  const sourcePath = join(dir, `${base}.c`);
  const path = join(dir, `${base}.so`);
  if (existsSync(path)) return { path, sourcePath, cacheHit: true, compileMs: 0, flags, openmp: info.openmp };
  writeFileSync(sourcePath, source);
  // Compile to a private name, then rename: concurrent builds of one source never see half a file.
  const partial = `${path}.${process.pid}.${Date.now()}.tmp`;
  const command = [info.command, ...flags, sourcePath, "-o", partial, "-lm"];
  const t0 = performance.now();
  const run = limitedCommand(command, opts.cpuTimeLimitSec);
  const r = await execa(run[0]!, run.slice(1), { reject: false, all: true });
  const compileMs = performance.now() - t0;
  if (r.exitCode !== 0) {
    rmSync(partial, { force: true });
    const log = r.all ?? r.shortMessage;
    // SIGXCPU ends the compiler (gcc's driver reports its cc1 "CPU time limit exceeded").
    const overBudget = opts.cpuTimeLimitSec !== undefined && (r.signal === "SIGXCPU" || /CPU time limit exceeded/.test(log));
    throw new CCompileError(sourcePath, command, overBudget ? `the compiler used its CPU-time budget of ${opts.cpuTimeLimitSec} s\n${log}` : log);
  }
  renameSync(partial, path);
  return { path, sourcePath, cacheHit: false, compileMs, flags, openmp: info.openmp };
}
