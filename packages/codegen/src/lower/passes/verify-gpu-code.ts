/**
 * Step 13, `verifyGpuCode`: checks one lowered kernel against the target's limits — threads per
 * block (in total and per dimension), grid dimensions, static shared memory per block, vector
 * width of every access, per-thread local storage, and the blocks per SM `__launch_bounds__`
 * asks for (where the target knows its threads per SM) — and throws one GpuVerifyError listing
 * every violation.
 */
import { type DType, type PrimExpr, type Stmt, bytesOf, constantSize, elementType, forEachStmt, lanesOf } from "@tessera/ir";
import type { DeviceKernel } from "../../lowered.js";
import type { CudaTarget } from "../../targets/cuda.js";
import { type GpuLimit, GpuVerifyError } from "../errors.js";
import { OnceVisitor } from "../util/once-visitor.js";

/** CUDA's limit on local memory per thread (512 KiB). */
export const MAX_LOCAL_BYTES_PER_THREAD = 512 * 1024;

const DIMS = ["x", "y", "z"] as const;

/** Throws a GpuVerifyError naming every limit of `t` that `kernel` exceeds. */
export function verifyGpuCode(kernel: DeviceKernel, t: CudaTarget): void {
  const violated = (limit: GpuLimit, messages: readonly string[]) => messages.map((message) => ({ limit, message }));
  const violations = [
    ...violated("threads", threadViolations(kernel, t)),
    ...violated("grid", gridViolations(kernel, t)),
    ...violated("shared-memory", sharedMemoryViolations(kernel, t)),
    ...violated("vector-width", vectorViolations(kernel.body, t)),
    ...violated("local-memory", localMemoryViolations(kernel.body)),
  ];
  if (violations.length > 0)
    throw new GpuVerifyError(
      kernel.name,
      violations.map((v) => v.message),
      [...new Set(violations.map((v) => v.limit))],
    );
}

function threadViolations(kernel: DeviceKernel, t: CudaTarget): string[] {
  const out: string[] = [];
  const [x, y, z] = kernel.launch.block;
  const threads = x * y * z;
  if (threads > t.maxThreadsPerBlock) {
    out.push(`uses ${threads} threads per block (${x}×${y}×${z}); ${t.name} allows ${t.maxThreadsPerBlock}`);
  }
  const minBlocks = kernel.launch.minBlocksPerSM;
  const perSM = t.maxThreadsPerMultiProcessor;
  if (minBlocks !== undefined && perSM !== undefined && threads * minBlocks > perSM) {
    out.push(
      `asks for ${minBlocks} resident blocks of ${threads} threads per SM (__launch_bounds__(${threads}, ${minBlocks})); ` +
        `${t.name} (${t.arch}) holds ${perSM} threads per SM`,
    );
  }
  kernel.launch.block.forEach((extent, d) => {
    const limit = t.maxBlockDim[d]!;
    if (extent > limit) out.push(`threadIdx.${DIMS[d]} has extent ${extent}; ${t.name} allows ${limit}`);
  });
  return out;
}

function gridViolations(kernel: DeviceKernel, t: CudaTarget): string[] {
  const out: string[] = [];
  kernel.launch.grid.forEach((extent, d) => {
    const limit = t.maxGridDim[d]!;
    if (extent > limit) out.push(`blockIdx.${DIMS[d]} has extent ${extent}; ${t.name} allows ${limit}`);
  });
  return out;
}

function sharedMemoryViolations(kernel: DeviceKernel, t: CudaTarget): string[] {
  const dynamic = kernel.launch.dynamicSharedBytes;
  if (dynamic === 0) {
    return kernel.sharedBytes > t.maxSharedMemoryPerBlock
      ? [`uses ${kernel.sharedBytes} bytes of shared memory; ${t.name} allows ${t.maxSharedMemoryPerBlock}`]
      : [];
  }
  const out: string[] = [];
  if (kernel.sharedBytes > t.maxSharedMemoryPerBlock)
    out.push(`uses ${kernel.sharedBytes} bytes of static shared memory; ${t.name} allows ${t.maxSharedMemoryPerBlock}`);
  const optin = t.maxSharedMemoryPerBlockOptin ?? t.maxSharedMemoryPerBlock;
  const total = kernel.sharedBytes + dynamic;
  if (total > optin) out.push(`uses ${total} bytes of shared memory (${dynamic} dynamic); ${t.name} allows ${optin} per block`);
  return out;
}

/** Every vector value loaded, stored or computed must fit the widest access (float4: 16 bytes). */
function vectorViolations(body: Stmt, t: CudaTarget): string[] {
  const walk = new DTypeWalker();
  walk.visitStmt(body);
  const wide = [...new Set([...walk.storedDTypes, ...walk.exprDTypes])].filter(
    (dt) => lanesOf(dt) > 1 && lanesOf(dt) * bytesOf(elementType(dt)) > t.maxVectorBytes,
  );
  return wide.map((dt) => `uses ${dt} values (${lanesOf(dt) * bytesOf(elementType(dt))} bytes); ${t.name} allows vectors of at most ${t.maxVectorBytes} bytes`);
}

/**
 * The dtypes of stored values, and of every expression but Ramps (an index vector is no value).
 * Only sets are gathered, so a subtree met again (unrolled code repeats objects) is skipped.
 */
class DTypeWalker extends OnceVisitor {
  readonly storedDTypes = new Set<DType>();
  readonly exprDTypes = new Set<DType>();

  protected override enterStmt(s: Stmt): void {
    if (s.kind === "BufferStore") this.storedDTypes.add(s.value.dtype);
  }

  protected override leaveExpr(e: PrimExpr): void {
    if (e.kind !== "Ramp") this.exprDTypes.add(e.dtype);
  }
}

/** Local (per-thread) allocations need a constant size, and all together fit CUDA's local memory. */
function localMemoryViolations(body: Stmt): string[] {
  const out: string[] = [];
  let total = 0;
  forEachStmt(body, (s) => {
    if (s.kind !== "Allocate" || s.buffer.scope !== "local") return;
    const elements = constantSize(s.buffer);
    if (elements === undefined) out.push(`local buffer ${s.buffer.name} has a symbolic size; per-thread storage needs a constant size`);
    else total += elements * bytesOf(s.buffer.dtype);
  });
  if (total > MAX_LOCAL_BYTES_PER_THREAD) {
    out.push(`uses ${total} bytes of local memory per thread; CUDA allows ${MAX_LOCAL_BYTES_PER_THREAD}`);
  }
  return out;
}
