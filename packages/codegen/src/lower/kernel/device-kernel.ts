/**
 * Assembling a DeviceKernel record from a kernel body and its parameters: the launch metadata
 * (shape read from the body's thread_extent attributes, parameter kinds and dtypes, the minimum
 * of blocks per SM from launch-bounds attributes, the dynamic shared memory of its `shared.dyn`
 * allocations, merged into one) and the static shared memory it allocates.
 * Used by splitHostDevice and by `moduleFromKernelFunc`.
 */
import { type Buffer, IRError, type Stmt, type TensorMapSpec, type Var, bytesOf, constantSize, forEachStmt, tensorMapsOf } from "@tessera/ir";
import { KERNEL_PARAM_DTYPES, type KernelParam, type LaunchMetadata } from "../../launch-metadata.js";
import type { DeviceKernel, DeviceKernelParam } from "../../lowered.js";
import { type LaunchBoundsValue, agreedMinBlocks, extractLaunchBounds } from "./launch-bounds.js";
import { mergeDynamicSharedAllocations } from "./merge-dynamic-shared.js";
import { readLaunchShape } from "./thread-env.js";

type Fail = (detail: string) => never;

/** The launch-metadata view of kernel parameters; a dtype a kernel cannot take is reported. */
export function launchParams(params: readonly DeviceKernelParam[], fail: Fail): KernelParam[] {
  return params.flatMap((p): KernelParam[] => {
    const dtype = p.kind === "buffer" ? p.buffer.dtype : p.dtype;
    if (!(KERNEL_PARAM_DTYPES as readonly string[]).includes(dtype)) {
      fail(`parameter ${p.name} has dtype ${dtype}, which a kernel parameter cannot have`);
    }
    const param: KernelParam = { name: p.name, kind: p.kind, dtype: dtype as KernelParam["dtype"] };
    const map = p.kind === "buffer" ? p.tensorMap : undefined;
    if (map === undefined) return [param];
    const { shape, rowStride, box, swizzle } = map;
    return [
      param,
      { name: tensorMapParamName(p.name), kind: "tensor_map", dtype: param.dtype, tensorMap: { shape: [...shape], rowStride, box: [...box], swizzle } },
    ];
  });
}

/** The name of a buffer's tensor-map parameter. */
export function tensorMapParamName(buffer: string): string {
  return `${buffer}_tmap`;
}

/**
 * The parameters with the tensor maps the body's TMA loads need (ir's tensorMapsOf). `tensors`:
 * the 2-D views of buffer parameters that lowering flattened (by data variable; lowerTmaCopy
 * records them), whose shapes the maps encode.
 */
export function withTensorMaps(
  params: readonly DeviceKernelParam[],
  body: Stmt,
  fail: Fail,
  tensors: ReadonlyMap<Var, Buffer> = new Map(),
): DeviceKernelParam[] {
  let maps: Map<Var, TensorMapSpec>;
  try {
    const found = tensorMapsOf(
      body,
      params.flatMap((p) => (p.kind === "buffer" ? [tensors.get(p.buffer.data) ?? p.buffer] : [])),
    );
    maps = new Map([...found].map(([b, spec]) => [b.data, spec]));
  } catch (e) {
    if (e instanceof IRError) fail(e.message);
    throw e;
  }
  if (maps.size === 0) return [...params];
  return params.map((p) => {
    const map = p.kind === "buffer" ? maps.get(p.buffer.data) : undefined;
    return map === undefined ? p : { ...p, tensorMap: map };
  });
}

/** Bytes of static shared memory the body allocates (each allocation needs a constant size). */
export function staticSharedBytes(body: Stmt, fail: Fail): number {
  let total = 0;
  forEachStmt(body, (s) => {
    if (s.kind !== "Allocate" || s.buffer.scope !== "shared") return;
    const elements = constantSize(s.buffer);
    if (elements === undefined) fail(`shared buffer ${s.buffer.name} has a symbolic size; static shared memory needs a constant size`);
    total += elements! * bytesOf(s.buffer.dtype);
  });
  return total;
}

/**
 * `launchBounds`: minimums of blocks per SM given outside the body (the function attribute,
 * attributes around the launch nest); those inside the body are taken out of it. All must agree.
 */
export function makeDeviceKernel(
  name: string,
  kernelParams: readonly DeviceKernelParam[],
  nestBody: Stmt,
  fail: Fail,
  launchBounds: readonly LaunchBoundsValue[] = [],
  tensors: ReadonlyMap<Var, Buffer> = new Map(),
): DeviceKernel {
  const params = withTensorMaps(kernelParams, nestBody, fail, tensors);
  const extracted = extractLaunchBounds(nestBody, fail);
  const values = extracted.values;
  const { body, dynamicSharedBytes } = mergeDynamicSharedAllocations(extracted.body, fail);
  const minBlocksPerSM = agreedMinBlocks([...launchBounds, ...values], fail);
  const { grid, block } = readLaunchShape(body, fail);
  const launch: LaunchMetadata = {
    name,
    grid,
    block,
    dynamicSharedBytes,
    params: launchParams(params, fail),
    ...(minBlocksPerSM === undefined ? {} : { minBlocksPerSM }),
  };
  return { name, params, body, launch, sharedBytes: staticSharedBytes(body, fail) };
}
