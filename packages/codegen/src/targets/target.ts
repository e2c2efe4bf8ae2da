/**
 * The target model: what code is generated for. A target is a tagged union on `kind`; each kind
 * has its own fields, and a kind added later (WebGPU, tensor cores) is one more member. Targets
 * are made from TVM-style strings: a kind or named target, then `-key=value` options.
 *
 *   target("nvidia/a100")                 // CudaTarget, limits of the A100
 *   target("cuda -arch=sm_90")            // CudaTarget, generic limits for sm_90
 *   target("llvm -mcpu=znver3")           // CTarget, C/OpenMP compiled with -march=znver3
 *   target("webgpu")                      // WebGpuTarget, WGSL with WebGPU's default limits
 *   target("metal")                       // MetalTarget, Metal Shading Language
 */
import { C_TARGET_NAMES, type CTarget, resolveCTarget } from "./c.js";
import { CUDA_TARGET_NAMES, type CudaTarget, resolveCudaTarget, type TargetOptions } from "./cuda.js";
import { TargetError } from "./errors.js";
import { METAL_TARGET_NAMES, type MetalTarget, WEBGPU_TARGET_NAMES, type WebGpuTarget, resolveMetalTarget, resolveWebGpuTarget } from "./gpu-source.js";
import { parseTargetString } from "./target-string.js";

export type Target = CudaTarget | CTarget | WebGpuTarget | MetalTarget;
/** Targets whose kernels are shader source of another GPU API, lowered like CUDA's. */
export type GpuSourceTarget = WebGpuTarget | MetalTarget;
/** Every GPU target: what a `LoweredModule` may be lowered for. */
export type GpuTarget = CudaTarget | GpuSourceTarget;
export type TargetKind = Target["kind"];

/** Target strings that resolve to a CUDA target (checked at compile time where the string is a literal). */
export type CudaTargetName = "cuda" | `cuda ${string}` | `nvidia/${string}`;
/** Target strings that resolve to a C target. */
export type CTargetName = "c" | "llvm" | `c ${string}` | `llvm ${string}`;
/** Target strings that resolve to a WebGPU target. */
export type WebGpuTargetName = "webgpu" | `webgpu ${string}`;
/** Target strings that resolve to a Metal target. */
export type MetalTargetName = "metal" | `metal ${string}` | `apple/${string}`;

/** Every target name a target string may start with. */
export const TARGET_NAMES: readonly string[] = [...CUDA_TARGET_NAMES, ...C_TARGET_NAMES, ...WEBGPU_TARGET_NAMES, ...METAL_TARGET_NAMES];

/** The kind a target string names, or undefined when its first word is no known target. */
export function targetKindOf(spec: string): TargetKind | undefined {
  const head = spec.trim().split(/\s+/)[0] ?? "";
  if (CUDA_TARGET_NAMES.includes(head)) return "cuda";
  if (C_TARGET_NAMES.includes(head)) return "c";
  if (WEBGPU_TARGET_NAMES.includes(head)) return "webgpu";
  if (METAL_TARGET_NAMES.includes(head)) return "metal";
  return undefined;
}

/**
 * Resolves a target string (TVM's `Target("...")`). `opts` apply to CUDA targets: the local
 * device's limits for `cuda`, and limit overrides in TVM's dictionary spelling.
 */
export function target(spec: CudaTargetName, opts?: TargetOptions): CudaTarget;
export function target(spec: CTargetName): CTarget;
export function target(spec: WebGpuTargetName): WebGpuTarget;
export function target(spec: MetalTargetName): MetalTarget;
export function target(spec: string, opts?: TargetOptions): Target;
export function target(spec: string, opts: TargetOptions = {}): Target {
  const parsed = parseTargetString(spec);
  const kind = targetKindOf(parsed.head);
  if (kind === "cuda") return resolveCudaTarget(parsed, opts);
  if (kind === "c") return resolveCTarget(parsed);
  if (kind === "webgpu") return resolveWebGpuTarget(parsed);
  if (kind === "metal") return resolveMetalTarget(parsed);
  throw new TargetError(`unknown target "${parsed.head}"; known targets: ${TARGET_NAMES.join(", ")}`);
}

export function isCudaTarget(t: unknown): t is CudaTarget {
  return kindOf(t) === "cuda";
}

export function isCTarget(t: unknown): t is CTarget {
  return kindOf(t) === "c";
}

export function isWebGpuTarget(t: unknown): t is WebGpuTarget {
  return kindOf(t) === "webgpu";
}

export function isMetalTarget(t: unknown): t is MetalTarget {
  return kindOf(t) === "metal";
}

function kindOf(t: unknown): unknown {
  return typeof t === "object" && t !== null ? (t as { kind?: unknown }).kind : undefined;
}

/** A CUDA target from a string or target; any other kind is a TargetError naming `user`. */
export function cudaTarget(spec: Target | string, opts?: TargetOptions, user = "this step"): CudaTarget {
  const t = typeof spec === "string" ? target(spec, opts) : spec;
  if (t.kind !== "cuda") throw new TargetError(`${user} needs a CUDA target, but "${t.name}" is a ${t.kind} target`);
  return t;
}

/** A C target from a string or target; any other kind is a TargetError naming `user`. */
export function cTarget(spec: Target | string, user = "this step"): CTarget {
  const t = typeof spec === "string" ? target(spec) : spec;
  if (t.kind !== "c") throw new TargetError(`${user} needs a C target, but "${t.name}" is a ${t.kind} target`);
  return t;
}
