/**
 * What the CPU schedules' size rules need to know about the machine, probed once and cached in a
 * file per machine: the cost of one OpenMP parallel region (the time a region adds to the work it
 * splits: waking the sleeping team, the join, the slower thread) and the data cache sizes.
 *
 * The region cost is measured by a small OpenMP program compiled with the system C compiler (the C
 * target's, `$TESSERA_CC` or `cc`), run with passive waiting as the runtime runs generated code:
 * the same compute-bound job serially and split over the team, many times interleaved, the fastest
 * of each; cost = parallel − serial / threads. Caches come from Linux's sysfs, else getconf (CPUID) or macOS's sysctl (cache-sizes.ts), the SIMD width from the
 * CPU flags in /proc/cpuinfo (AVX-512 and AVX2 machines need different register tiles). Without a compiler,
 * OpenMP or sysfs, the reference machine's figures (DEFAULT_MACHINE) stand in, and `why` says so.
 *
 * A probe on a busy machine (1-minute load average above half the cores) measures the other
 * processes, not the machine (a region cost of milliseconds while the team waits for a core): then
 * the reference figure stands in for this process and nothing is cached, so a later quiet process
 * probes again.
 *
 * Cache file: `<$TESSERA_CACHE_DIR or <tmp>/tessera-cache>/machine/<key>.json`, the key hashing the
 * host name, CPU model, core count, compiler and the probe's source; `TESSERA_MACHINE_PROFILE=defaults` skips probing.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { type CacheSizeSource, cacheSizesFromSysfs, probeCacheSizesOfHost } from "./cache-sizes.js";

export interface MachineProfile {
  readonly cores: number;
  /** µs one parallel region adds to the work it splits, on the idle machine. */
  readonly parallelRegionUs: number;
  /** L1 data cache per core, bytes. */
  readonly l1DataBytes: number;
  /** L2 cache per core, bytes. */
  readonly l2Bytes: number;
  /** Width of the widest SIMD registers the compiler targets with -march=native, bytes (AVX-512: 64, AVX2: 32). */
  readonly simdBytes: number;
  /** "probed" on this machine, or "defaults" (the reference machine's figures; `why` says why). */
  readonly source: "probed" | "defaults";
  readonly why?: string;
  /** Where the cache sizes were read: "sysfs", "getconf" (CPUID through glibc) or "sysctl" (macOS). */
  readonly cachesFrom?: CacheSizeSource;
}

/**
 * The reference machine (the 2-core AMD EPYC of docs/benchmarks/cpu-operators.md): a region cost
 * that matched its measured small-conv2d crossover, and its caches. Used for an explicit core count
 * (sizing for another machine) and where probing is not possible.
 */
export const DEFAULT_MACHINE: MachineProfile = {
  cores: 2,
  parallelRegionUs: 50,
  l1DataBytes: 48 * 1024,
  l2Bytes: 512 * 1024,
  simdBytes: 64,
  source: "defaults",
};

export function hostCores(): number {
  return typeof os.availableParallelism === "function" ? os.availableParallelism() : os.cpus().length;
}

const REGION_PROBE = `#include <omp.h>
#include <stdio.h>
#include <time.h>
static double now_us(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e6 + t.tv_nsec / 1e3; }
#define N 4096
static float x[N];
/* Not inlined: the serial run and the team's runs must execute the same machine code. Inlined into
   main with constant bounds, gcc -O2 compiled the serial job 4x faster than the outlined team's, so a
   one-thread team "cost" hundreds of microseconds. */
__attribute__((noinline)) static void job(int lo, int hi, int rounds) {
  for (int r = 0; r < rounds; ++r)
    for (int i = lo; i < hi; ++i) x[i] = x[i] * 0.999f + 0.001f;
}
int main(void) {
  int threads = omp_get_max_threads();
  int rounds = 1;
  /* Rounds for a job of over 200 us, judged by the fastest of 5 runs: one run stretched by a
     preemption on a busy machine would otherwise stop the doubling at a job of a microsecond. */
  for (;;) {
    double best = 1e30;
    for (int k = 0; k < 5; ++k) { double t0 = now_us(); job(0, N, rounds); double d = now_us() - t0; if (d < best) best = d; }
    if (best > 200 || rounds > (1 << 20)) break;
    rounds *= 2;
  }
  double serial = 1e30, parallel = 1e30;
  for (int rep = 0; rep < 41; ++rep) {
    double t0 = now_us();
    job(0, N, rounds);
    double t1 = now_us();
    #pragma omp parallel num_threads(threads)
    {
      int t = omp_get_thread_num(), n = omp_get_num_threads();
      job(N / n * t, t == n - 1 ? N : N / n * (t + 1), rounds);
    }
    double t2 = now_us();
    if (t1 - t0 < serial) serial = t1 - t0;
    if (t2 - t1 < parallel) parallel = t2 - t1;
  }
  double sink = 0;
  for (int i = 0; i < N; ++i) sink += x[i];
  printf("%d %.3f %.3f %g\\n", threads, serial, parallel, sink);
  return 0;
}
`;

function cacheDir(): string {
  const env = process.env.TESSERA_CACHE_DIR;
  return join(env !== undefined && env.length > 0 ? env : join(os.tmpdir(), "tessera-cache"), "machine");
}

function compilerCommand(): string {
  const env = process.env.TESSERA_CC;
  return env !== undefined && env.length > 0 ? env : "cc";
}

/** The file the profile of this machine is cached in. */
export function machineProfilePath(): string {
  const cpu = os.cpus()[0]?.model ?? "unknown cpu";
  const key = createHash("sha256")
    // The probe's source too: a profile measured by an older probe is measured again.
    .update([os.hostname(), os.platform(), os.arch(), cpu, String(hostCores()), compilerCommand(), REGION_PROBE].join("\0"))
    .digest("hex")
    .slice(0, 16);
  return join(cacheDir(), `${key}.json`);
}

/**
 * L1 data and L2 sizes from sysfs only (`root`: a sysfs cache directory), or undefined. `probeMachine`
 * also asks getconf and sysctl (cache-sizes.ts).
 */
export function probeCacheSizes(root = "/sys/devices/system/cpu/cpu0/cache"): { l1DataBytes: number; l2Bytes: number } | undefined {
  const found = cacheSizesFromSysfs(root);
  return found === undefined ? undefined : { l1DataBytes: found.l1DataBytes, l2Bytes: found.l2Bytes };
}

/**
 * The SIMD register width in bytes from /proc/cpuinfo's flags: 64 with avx512f, 32 with avx or avx2,
 * else 16 (SSE, NEON); undefined where the file is not readable.
 */
export function probeSimdBytes(cpuinfo = "/proc/cpuinfo"): number | undefined {
  let text: string;
  try {
    text = readFileSync(cpuinfo, "utf8");
  } catch {
    return undefined;
  }
  const flags = new Set((/^(?:flags|Features)\s*:(.*)$/m.exec(text)?.[1] ?? "").trim().split(/\s+/));
  if (flags.has("avx512f")) return 64;
  if (flags.has("avx2") || flags.has("avx")) return 32;
  return 16;
}

/** What the region probe measured: µs one region adds, and the fastest serial and team runs of its job. */
export interface RegionProbe {
  readonly us: number;
  readonly threads: number;
  readonly serialUs: number;
  readonly parallelUs: number;
}

/**
 * Runs the region probe: µs one region adds, or a reason it could not be measured. `threads` sets
 * the team's size (OMP_NUM_THREADS; by default the runtime's, every core).
 */
export function probeParallelRegionUs(compiler = compilerCommand(), opts: { readonly threads?: number } = {}): RegionProbe | { why: string } {
  const dir = mkdtempSync(join(os.tmpdir(), "tessera-region-probe-"));
  try {
    writeFileSync(join(dir, "probe.c"), REGION_PROBE);
    const exe = join(dir, "probe");
    const cc = spawnSync(compiler, ["-O2", "-fopenmp", join(dir, "probe.c"), "-o", exe], { encoding: "utf8" });
    if (cc.status !== 0) return { why: `${compiler} -fopenmp failed: ${(cc.stderr || String(cc.error ?? "")).split("\n")[0]}` };
    const env = {
      ...process.env,
      OMP_WAIT_POLICY: process.env.OMP_WAIT_POLICY ?? "passive",
      ...(opts.threads === undefined ? {} : { OMP_NUM_THREADS: String(opts.threads) }),
    };
    const run = spawnSync(exe, [], { encoding: "utf8", env, timeout: 30_000 });
    const fields = run.status === 0 ? run.stdout.trim().split(/\s+/).map(Number) : [];
    const [threads, serial, parallel] = fields;
    if (threads === undefined || serial === undefined || parallel === undefined || !Number.isFinite(parallel))
      return { why: `the region probe did not run (${run.error?.message ?? `exit ${run.status}`})` };
    return { us: Math.max(1, parallel - serial / threads), threads, serialUs: serial, parallelUs: parallel };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Whether the machine is quiet enough for the region probe to measure it rather than its load. */
export function quietEnoughToProbe(load1 = os.loadavg()[0] ?? 0, cores = hostCores()): boolean {
  return load1 <= cores / 2;
}

/** Probes this machine (no cache). */
export function probeMachine(): MachineProfile {
  const cores = hostCores();
  const caches = probeCacheSizesOfHost();
  const simdBytes = probeSimdBytes();
  const region: { us: number } | { why: string } =
    cores < 2
      ? { us: DEFAULT_MACHINE.parallelRegionUs }
      : quietEnoughToProbe()
        ? probeParallelRegionUs()
        : { why: `the machine is busy (load average ${(os.loadavg()[0] ?? 0).toFixed(1)} on ${cores} cores): the region cost is not probed` };
  const why = [
    caches === undefined ? "no cache sizes from sysfs, getconf or sysctl" : undefined,
    simdBytes === undefined ? "no /proc/cpuinfo for the SIMD width" : undefined,
    "why" in region ? region.why : undefined,
  ]
    .filter((w) => w !== undefined)
    .join("; ");
  return {
    cores,
    parallelRegionUs: "us" in region ? region.us : DEFAULT_MACHINE.parallelRegionUs,
    l1DataBytes: caches?.l1DataBytes ?? DEFAULT_MACHINE.l1DataBytes,
    l2Bytes: caches?.l2Bytes ?? DEFAULT_MACHINE.l2Bytes,
    simdBytes: simdBytes ?? DEFAULT_MACHINE.simdBytes,
    source: why === "" ? "probed" : "defaults",
    ...(why === "" ? {} : { why }),
    ...(caches === undefined ? {} : { cachesFrom: caches.source }),
  };
}

function isProfile(x: unknown): x is MachineProfile {
  if (typeof x !== "object" || x === null) return false;
  const p = x as Record<string, unknown>;
  return ["cores", "parallelRegionUs", "l1DataBytes", "l2Bytes", "simdBytes"].every((k) => typeof p[k] === "number" && (p[k] as number) > 0);
}

let memo: MachineProfile | undefined;

/** This machine's profile: from the cache file, else probed (a second or so) and written there. */
export function machineProfile(): MachineProfile {
  if (memo !== undefined) return memo;
  if (process.env.TESSERA_MACHINE_PROFILE === "defaults") {
    memo = { ...DEFAULT_MACHINE, cores: hostCores(), why: "TESSERA_MACHINE_PROFILE=defaults" };
    return memo;
  }
  const path = machineProfilePath();
  try {
    const cached: unknown = JSON.parse(readFileSync(path, "utf8"));
    if (isProfile(cached)) {
      memo = cached;
      return memo;
    }
  } catch {
    // No cache yet, or an unreadable one: probe again.
  }
  memo = probeMachine();
  if (memo.source !== "probed") return memo;
  try {
    mkdirSync(cacheDir(), { recursive: true });
    const partial = `${path}.${process.pid}.tmp`;
    writeFileSync(partial, `${JSON.stringify(memo, null, 2)}\n`);
    renameSync(partial, path);
  } catch {
    // A read-only cache directory: probe again in the next process.
  }
  return memo;
}
