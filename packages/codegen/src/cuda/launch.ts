/**
 * Launch dimensions read from a kernel's `thread_extent` attributes, and the launch metadata
 * the generator reports for it (checked against the metadata lowering recorded).
 */
import { type Stmt, type Var, forEachStmt } from "@tessera/ir";
import { type Dim3, type KernelParam, type LaunchMetadata, LaunchMetadataSchema } from "../launch-metadata.js";
import type { DeviceKernel } from "../lowered.js";
import { CodegenError } from "./errors.js";

export const THREAD_TAGS = ["blockIdx.x", "blockIdx.y", "blockIdx.z", "threadIdx.x", "threadIdx.y", "threadIdx.z"] as const;
export type ThreadTag = (typeof THREAD_TAGS)[number];

export interface ThreadBinding {
  readonly tag: ThreadTag;
  readonly variable: Var;
  readonly extent: number;
}

export interface LaunchShape {
  readonly bindings: readonly ThreadBinding[];
  readonly grid: Dim3;
  readonly block: Dim3;
  readonly threadsPerBlock: number;
}

function isThreadTag(tag: string): tag is ThreadTag {
  return (THREAD_TAGS as readonly string[]).includes(tag);
}

/** Every `thread_extent` attribute of the body: one variable and one constant extent per tag. */
export function launchShape(kernel: DeviceKernel): LaunchShape {
  const byTag = new Map<ThreadTag, ThreadBinding>();
  const error = (detail: string): never => {
    throw new CodegenError(kernel.name, detail);
  };
  forEachStmt(kernel.body, (s: Stmt) => {
    if (s.kind !== "AttrStmt") return;
    if (s.key === "virtual_thread") error("a virtual thread (vthread) binding was not lowered to serial loops");
    if (s.key !== "thread_extent") return;
    const v = s.node;
    if (v === undefined) return error("a thread_extent attribute has no thread variable");
    if (!isThreadTag(v.name)) return error(`unknown thread tag "${v.name}" (expected one of ${THREAD_TAGS.join(", ")})`);
    if (s.value.kind !== "IntImm") return error(`the extent of ${v.name} is not a constant`);
    const previous = byTag.get(v.name);
    if (previous !== undefined && previous.extent !== s.value.value) {
      error(`${v.name} is launched with two extents, ${previous.extent} and ${s.value.value}`);
    }
    if (previous !== undefined && previous.variable !== v) error(`${v.name} is bound to two different variables`);
    byTag.set(v.name, { tag: v.name, variable: v, extent: s.value.value });
  });
  const dim = (prefix: string): Dim3 =>
    (["x", "y", "z"] as const).map((axis) => byTag.get(`${prefix}.${axis}` as ThreadTag)?.extent ?? 1) as unknown as Dim3;
  const block = dim("threadIdx");
  return { bindings: [...byTag.values()], grid: dim("blockIdx"), block, threadsPerBlock: block[0] * block[1] * block[2] };
}

function paramMetadata(kernel: DeviceKernel): KernelParam[] {
  return kernel.params.map((p) => ({
    name: p.name,
    kind: p.kind,
    dtype: (p.kind === "buffer" ? p.buffer.dtype : p.dtype) as KernelParam["dtype"],
  }));
}

/**
 * The kernel's launch metadata as the generated code needs it, validated with
 * LaunchMetadataSchema. Disagreement with `kernel.launch` means lowering recorded something
 * other than what the body launches, and is reported rather than silently trusted.
 */
export function launchMetadata(kernel: DeviceKernel, shape: LaunchShape, dynamicSharedBytes: number): LaunchMetadata {
  const candidate = { name: kernel.name, grid: shape.grid, block: shape.block, dynamicSharedBytes, params: paramMetadata(kernel) };
  const parsed = LaunchMetadataSchema.safeParse(candidate);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ");
    throw new CodegenError(kernel.name, `invalid launch metadata: ${issues}`);
  }
  const recorded = kernel.launch;
  const mismatches: string[] = [];
  const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);
  if (recorded.name !== kernel.name) mismatches.push(`name ${recorded.name} (kernel is ${kernel.name})`);
  if (!same(recorded.grid, shape.grid)) mismatches.push(`grid [${recorded.grid.join(", ")}] but the body launches [${shape.grid.join(", ")}]`);
  if (!same(recorded.block, shape.block)) mismatches.push(`block [${recorded.block.join(", ")}] but the body launches [${shape.block.join(", ")}]`);
  if (recorded.dynamicSharedBytes !== dynamicSharedBytes) {
    mismatches.push(`${recorded.dynamicSharedBytes} bytes of dynamic shared memory but the body allocates ${dynamicSharedBytes}`);
  }
  if (!same(recorded.params, parsed.data.params)) mismatches.push("a parameter list different from the kernel's parameters");
  if (mismatches.length > 0) throw new CodegenError(kernel.name, `the recorded launch metadata disagrees with the kernel: ${mismatches.join("; ")}`);
  return parsed.data;
}
