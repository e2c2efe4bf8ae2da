/**
 * Launch dimensions read from a kernel's `thread_extent` attributes, and the launch metadata
 * the generator reports for it (checked against the metadata lowering recorded).
 */
import { forEachStmt } from "@tessera/ir";
import { type Dim3, type LaunchMetadata, LaunchMetadataSchema } from "../launch-metadata.js";
import { launchParams } from "../lower/kernel/device-kernel.js";
import { type ThreadBinding, readLaunchShape } from "../lower/kernel/thread-env.js";
import type { DeviceKernel } from "../lowered.js";
import { CodegenError } from "./errors.js";

export type { ThreadBinding };

export interface LaunchShape {
  readonly bindings: readonly ThreadBinding[];
  readonly grid: Dim3;
  readonly block: Dim3;
  readonly threadsPerBlock: number;
}

/** The body's launch shape; the generated code needs exactly one variable per tag. */
export function launchShape(kernel: DeviceKernel): LaunchShape {
  const error = (detail: string): never => {
    throw new CodegenError(kernel.name, detail);
  };
  forEachStmt(kernel.body, (s) => {
    if (s.kind === "AttrStmt" && s.key === "virtual_thread") error("a virtual thread (vthread) binding was not lowered to serial loops");
  });
  const { bindings, grid, block } = readLaunchShape(kernel.body, error);
  for (const b of bindings) {
    if (bindings.some((o) => o.tag === b.tag && o.variable !== b.variable)) error(`${b.tag} is bound to two different variables`);
  }
  return { bindings, grid, block, threadsPerBlock: block[0] * block[1] * block[2] };
}

/**
 * The kernel's launch metadata as the generated code needs it, validated with
 * LaunchMetadataSchema. Disagreement with `kernel.launch` means lowering recorded something
 * other than what the body launches, and is reported rather than silently trusted.
 */
export function launchMetadata(kernel: DeviceKernel, shape: LaunchShape, dynamicSharedBytes: number): LaunchMetadata {
  const fail = (detail: string): never => {
    throw new CodegenError(kernel.name, detail);
  };
  const minBlocks = kernel.launch.minBlocksPerSM;
  const candidate = {
    name: kernel.name,
    grid: shape.grid,
    block: shape.block,
    dynamicSharedBytes,
    params: launchParams(kernel.params, fail),
    ...(minBlocks === undefined ? {} : { minBlocksPerSM: minBlocks }),
  };
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
