/**
 * Locates and loads the native addon (tessera_cuda.node). Loading never throws: when the addon
 * is missing or fails to load, `loadNative()` reports why, and the runtime treats CUDA as
 * unavailable with that reason.
 *
 * Where it looks, in order: $TESSERA_RUNTIME_ADDON; `tessera_cuda.node` beside this module (a
 * bundle made by `pnpm bundle:gpu`); `../build/Release/tessera_cuda.node` relative to this
 * module (src/ or dist/ in the package).
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
  HostLibrary?: new (path: string) => NativeHostLibrary;
  DeviceBuffer: new (device: number, byteLength: number) => NativeDeviceBuffer;
  NativeModule: new (device: number, image: Uint8Array) => NativeModuleHandle;
  probe(): NativeProbe;
  probeNvrtc(): NativeNvrtcProbe;
  deviceCount(): number;
  deviceInfo(device: number): NativeDeviceInfo;
  memInfo(device: number): { free: number; total: number };
  synchronize(device: number): void;
  liveAllocations(): { count: number; bytes: number };
  launch(fn: NativeKernelFunction, dims: Uint32Array, args: Uint8Array, offsets: Uint32Array): void;
  timeLaunches(specs: NativeLaunchSpec[], number: number): number;
  nvrtcCompile(source: string, name: string, options: string[], output: "cubin" | "ptx"): Promise<NvrtcResult>;
}

export type NativeLoad =
  | { ok: true; addon: NativeAddon; path: string }
  | { ok: false; reason: string; tried: string[] };

const ADDON_FILE = "tessera_cuda.node";

export function addonCandidates(): string[] {
  const here = dirname(fileURLToPath(import.meta.url));
  const out: string[] = [];
  const env = process.env.TESSERA_RUNTIME_ADDON;
  if (env !== undefined && env.length > 0) out.push(env);
  out.push(join(here, ADDON_FILE));
  out.push(join(here, "..", "build", "Release", ADDON_FILE));
  out.push(join(here, "..", "..", "build", "Release", ADDON_FILE));
  return out;
}

function buildErrorText(): string | undefined {
  const here = dirname(fileURLToPath(import.meta.url));
  for (const f of [join(here, "..", "build", "native-build-error.txt"), join(here, "..", "..", "build", "native-build-error.txt")]) {
    if (existsSync(f)) return readFileSync(f, "utf8").trim();
  }
  return undefined;
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
  const buildError = buildErrorText();
  let reason: string;
  if (errors.length > 0) reason = `the native addon failed to load: ${errors.join("; ")}`;
  else if (buildError !== undefined) {
    const lines = buildError.split("\n");
    const errors = lines.slice(1).filter((l) => /error/i.test(l) && !l.startsWith("gyp ERR!"));
    const shown = [lines[0] ?? "", ...errors.slice(0, 6)];
    reason = `the native addon was not built (full log: packages/runtime/build/native-build-error.txt): ${shown.join("\n")}`;
  }
  else reason = `the native addon ${ADDON_FILE} was not found (run \`pnpm --filter @tessera/runtime build:native\`); looked in: ${tried.join(", ")}`;
  cached = { ok: false, reason, tried };
  return cached;
}
