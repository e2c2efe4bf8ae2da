/**
 * Locates and loads the native addon (tessera_cuda.node). Loading never throws: when the addon
 * is missing or fails to load, `loadNative()` reports why, and the runtime treats CUDA as
 * unavailable with that reason.
 *
 * Where it looks, in order: $TESSERA_RUNTIME_ADDON; `tessera_cuda.node` beside this module (a
 * bundle made by `pnpm bundle:gpu`); `build/Release/tessera_cuda.node` in the package (what its
 * install script builds; from src/ or dist/); `prebuilds/<platform>-<arch>/tessera_cuda.node` in
 * the package (a binary shipped in the published tarball, see scripts/build-native.mjs).
 */
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export interface NativeProbe {
  ok: boolean;
  reason: string;
  library: string;
  driverVersion?: number;
}

export interface NativeNvrtcProbe {
  ok: boolean;
  reason: string;
  library: string;
  major?: number;
  minor?: number;
}

export interface NativeDeviceInfo {
  ordinal: number;
  name: string;
  computeCapabilityMajor: number;
  computeCapabilityMinor: number;
  multiprocessorCount: number;
  maxThreadsPerBlock: number;
  maxThreadsPerMultiprocessor: number;
  warpSize: number;
  maxBlockDim: [number, number, number];
  maxGridDim: [number, number, number];
  sharedMemPerBlock: number;
  sharedMemPerBlockOptin: number;
  sharedMemPerMultiprocessor: number;
  registersPerBlock: number;
  registersPerMultiprocessor: number;
  l2CacheBytes: number;
  clockRateKHz: number;
  memoryClockRateKHz: number;
  memoryBusWidthBits: number;
  totalMemoryBytes: number;
}

export interface NativeDeviceBuffer {
  readonly ptr: bigint;
  readonly byteLength: number;
  readonly device: number;
  free(): void;
  copyFromHost(src: ArrayBufferView, dstOffsetBytes: number): void;
  copyToHost(dst: ArrayBufferView, srcOffsetBytes: number): void;
  copyFromDevice(src: NativeDeviceBuffer, byteLength: number): void;
  memset(bits: number, elementBytes: 1 | 2 | 4, count: number, offsetBytes: number): void;
}

export interface NativeFunctionAttributes {
  numRegs: number;
  staticSharedBytes: number;
  localBytes: number;
  constBytes: number;
  maxThreadsPerBlock: number;
  maxDynamicSharedBytes: number;
  ptxVersion: number;
  binaryVersion: number;
}

export interface NativeKernelFunction {
  readonly name: string;
  readonly device: number;
  attributes(): NativeFunctionAttributes;
  setMaxDynamicSharedBytes(bytes: number): void;
}

export interface NativeModuleHandle {
  getFunction(name: string): NativeKernelFunction;
  unload(): void;
}

/** [function, dims (grid xyz, block xyz, dynamic shared bytes), packed args, arg offsets] */
export type NativeLaunchSpec = [NativeKernelFunction, Uint32Array, Uint8Array, Uint32Array];

export interface NvrtcResult {
  ok: boolean;
  log: string;
  status: string;
  image?: Buffer;
}

/** A shared library opened with dlopen (the C target's compiled code). */
export interface NativeHostLibrary {
  readonly path: string;
  /** One call of `int32_t symbol(void** args)`; each argument's data pointer is passed. Returns its status. */
  call(symbol: string, args: readonly ArrayBufferView[]): number;
  /** `number` back-to-back calls; milliseconds for all of them. Throws when a call returns non-zero. */
  timeCalls(symbol: string, args: readonly ArrayBufferView[], number: number): number;
  close(): void;
}

export interface NativeAddon {
  /** Absent in an addon built before the C target existed. */
  HostLibrary?: new (
    path: string,
  ) => NativeHostLibrary;
  DeviceBuffer: new (device: number, byteLength: number) => NativeDeviceBuffer;
  NativeModule: new (device: number, image: Uint8Array) => NativeModuleHandle;
  probe(): NativeProbe;
  probeNvrtc(): NativeNvrtcProbe;
  deviceCount(): number;
  deviceInfo(device: number): NativeDeviceInfo;
  memInfo(device: number): { free: number; total: number };
  synchronize(device: number): void;
  /**
   * cuTensorMapEncodeTiled: a CUtensorMap (128 bytes) of `address` with `dims` (innermost first),
   * `strides` (bytes, rank − 1), `box` and a CUtensorMapSwizzle. Absent in an addon built before
   * tensor maps existed.
   */
  encodeTensorMapTiled?(
    dataType: number,
    address: bigint,
    dims: readonly number[],
    strides: readonly number[],
    box: readonly number[],
    swizzle: number,
  ): Uint8Array;
  liveAllocations(): { count: number; bytes: number };
  launch(fn: NativeKernelFunction, dims: Uint32Array, args: Uint8Array, offsets: Uint32Array): void;
  timeLaunches(specs: NativeLaunchSpec[], number: number): number;
  nvrtcCompile(source: string, name: string, options: string[], output: "cubin" | "ptx"): Promise<NvrtcResult>;
}

export type NativeLoad = { ok: true; addon: NativeAddon; path: string } | { ok: false; reason: string; tried: string[] };

const ADDON_FILE = "tessera_cuda.node";

/** The package's root folder: this module is in src/ or dist/ of the package, or in a bundle. */
function packageDirs(): string[] {
  const here = dirname(fileURLToPath(import.meta.url));
  return [join(here, ".."), join(here, "..", "..")];
}

export function addonCandidates(): string[] {
  const here = dirname(fileURLToPath(import.meta.url));
  const out: string[] = [];
  const env = process.env.TESSERA_RUNTIME_ADDON;
  if (env !== undefined && env.length > 0) out.push(env);
  out.push(join(here, ADDON_FILE));
  for (const dir of packageDirs()) out.push(join(dir, "build", "Release", ADDON_FILE));
  for (const dir of packageDirs()) out.push(join(dir, "prebuilds", `${process.platform}-${process.arch}`, ADDON_FILE));
  return out;
}

/** What the install script (scripts/build-native.mjs) wrote when it could not build the addon. */
function buildError(): { file: string; text: string } | undefined {
  for (const dir of packageDirs()) {
    const file = join(dir, "build", "native-build-error.txt");
    if (existsSync(file)) return { file, text: readFileSync(file, "utf8").trim() };
  }
  return undefined;
}

/** How to build the addon by hand, from wherever this package is installed. */
function buildHint(): string {
  const script = packageDirs()
    .map((dir) => join(dir, "scripts", "build-native.mjs"))
    .find((f) => existsSync(f));
  return script === undefined ? "pnpm --filter @tessera/runtime build:native" : `node ${script} --force`;
}

let cached: NativeLoad | undefined;

export function loadNative(): NativeLoad {
  if (cached !== undefined) return cached;
  const tried = addonCandidates();
  const require = createRequire(import.meta.url);
  const errors: string[] = [];
  for (const path of tried) {
    if (!existsSync(path)) continue;
    try {
      const addon = require(path) as NativeAddon;
      cached = { ok: true, addon, path };
      return cached;
    } catch (e) {
      errors.push(`${path}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  const failedBuild = buildError();
  let reason: string;
  if (errors.length > 0) reason = `the native addon failed to load: ${errors.join("; ")}`;
  else if (failedBuild !== undefined) {
    const lines = failedBuild.text.split("\n");
    const errorLines = lines.slice(1).filter((l) => /error/i.test(l) && !l.startsWith("gyp ERR!"));
    const shown = [lines[0] ?? "", ...errorLines.slice(0, 6)];
    reason = `the native addon was not built (full log: ${failedBuild.file}): ${shown.join("\n")}`;
  } else {
    // No addon and no build log: the install script never ran (pnpm 10 runs a dependency's
    // install script only when the project allows it, npm 11 warns about it).
    reason =
      `the native addon ${ADDON_FILE} was not found and its install script has not run (build it with \`${buildHint()}\`; ` +
      `with pnpm, allow it: pnpm.onlyBuiltDependencies ["@tessera/runtime"]); looked in: ${tried.join(", ")}`;
  }
  cached = { ok: false, reason, tried };
  return cached;
}
