/**
 * Pass 14, `splitHostDevice`: cuts the lowered function into device kernels and what the host
 * does around them. The host may only allocate global workspaces and launch kernels in sequence;
 * each maximal subtree starting at a `thread_extent` attribute (a launch nest) becomes one kernel.
 *
 * Kernel parameters: the function's parameters the kernel uses (buffers by their `data` variable,
 * scalars by identity), in the function's parameter order, then the workspaces it uses, in
 * workspace order. A kernel's `__launch_bounds__` minimum of blocks per SM comes from
 * `tirx.launch_bounds_min_blocks_per_sm` attributes in or around its launch nest and from the
 * function attribute of that name (kernel/launch-bounds.ts).
 */
import {
  type Allocate,
  type Buffer,
  type BufferLoad,
  type PrimFunc,
  type Stmt,
  type Var,
  allocate,
  constantSize,
  forEachStmt,
  printExpr,
  usesVar,
} from "@tessera/ir";
import type { DeviceKernel, DeviceKernelParam, Workspace } from "../../lowered.js";
import { LoweringError } from "../errors.js";
import { type Pass, cudaPass } from "../pass.js";
import { makeDeviceKernel } from "../kernel/device-kernel.js";
import { tmaTensorsOf } from "./lower-tma-copy.js";
import { OnceVisitor } from "../util/once-visitor.js";
import { type LaunchBoundsValue, attrLaunchBounds, functionLaunchBounds, isLaunchBoundsAttr } from "../kernel/launch-bounds.js";
import { containsThreadExtent, isThreadExtent } from "../kernel/thread-env.js";

const PASS = "splitHostDevice";

export interface HostDeviceSplit {
  readonly kernels: readonly DeviceKernel[];
  readonly workspaces: readonly Workspace[];
}

/** As a pass: checks that the function splits, and leaves it unchanged. */
export const splitHostDevicePass: Pass = cudaPass(PASS, (func) => {
  splitHostDevice(func);
  return func;
});

export function functionSymbol(func: PrimFunc): string {
  const symbol = func.attrs["global_symbol"];
  return typeof symbol === "string" && symbol !== "" ? symbol : "main";
}

export function splitHostDevice(func: PrimFunc): HostDeviceSplit {
  const symbol = functionSymbol(func);
  if (!containsThreadExtent(func.body)) {
    throw new LoweringError(PASS, `function ${symbol}: no loop is bound to a GPU thread: bind the outer loops to blockIdx/threadIdx with sch.bind`);
  }
  const host = new HostWalker(symbol);
  host.walk(func.body, [], []);
  const count = host.nests.length;
  const kernels = host.nests.map((nest, i) => buildKernel(func, count === 1 ? `${symbol}_kernel` : `${symbol}_kernel_${i}`, nest, host.workspaces));
  return { kernels, workspaces: host.workspaces.map((w) => w.workspace) };
}

interface WorkspaceAlloc {
  readonly buffer: Buffer;
  readonly workspace: Workspace;
}

interface LaunchNest {
  /** The launch nest wrapped in the per-block/per-thread allocations the host level made around it. */
  readonly body: Stmt;
  /** Launch-bounds attributes around the nest. */
  readonly launchBounds: readonly LaunchBoundsValue[];
}

/** Walks the host side: sequences, workspace allocations, launch nests; anything else is an error. */
class HostWalker {
  readonly nests: LaunchNest[] = [];
  readonly workspaces: WorkspaceAlloc[] = [];

  constructor(private readonly symbol: string) {}

  /**
   * `deviceAllocs`: non-global allocations made on the host level, pushed into the kernels using
   * them; `launchBounds`: launch-bounds attributes around `s`, applying to the kernels in it.
   */
  walk(s: Stmt, deviceAllocs: readonly Allocate[], launchBounds: readonly LaunchBoundsValue[]): void {
    if (isThreadExtent(s)) {
      const used = deviceAllocs.filter((a) => usesVar(s, (v) => v === a.buffer.data));
      const body = used.reduceRight<Stmt>((inner, a) => allocate(a.buffer, inner), s);
      this.nests.push({ body, launchBounds });
      return;
    }
    switch (s.kind) {
      case "SeqStmt":
        for (const c of s.seq) this.walk(c, deviceAllocs, launchBounds);
        return;
      case "Allocate":
        if (s.buffer.scope === "global") {
          this.workspaces.push({ buffer: s.buffer, workspace: this.workspace(s.buffer) });
          this.walk(s.body, deviceAllocs, launchBounds);
        } else {
          this.walk(s.body, [...deviceAllocs, s], launchBounds);
        }
        return;
      case "DeclBuffer":
        this.walk(s.body, deviceAllocs, launchBounds);
        return;
      case "AttrStmt":
        if (s.key === "thread_extent" || s.key === "virtual_thread") break;
        if (isLaunchBoundsAttr(s)) {
          const value = attrLaunchBounds(s, (detail) => this.fail(detail));
          this.walk(s.body, deviceAllocs, [...launchBounds, value]);
        } else {
          this.walk(s.body, deviceAllocs, launchBounds);
        }
        return;
      case "Evaluate":
        if (s.value.kind === "IntImm" || s.value.kind === "FloatImm") return; // a no-op left by simplification
        break;
      default:
        break;
    }
    throw new LoweringError(
      PASS,
      `function ${this.symbol}: ${describeHostStmt(s)} runs on the host, outside every kernel. Did you forget to bind it? Bind the loops around it to blockIdx/threadIdx with sch.bind`,
    );
  }

  private fail(detail: string): never {
    throw new LoweringError(PASS, `function ${this.symbol}: ${detail}`);
  }

  private workspace(buffer: Buffer): Workspace {
    const elements = constantSize(buffer);
    if (elements === undefined) {
      throw new LoweringError(PASS, `function ${this.symbol}: global buffer ${buffer.name} has a symbolic size; workspaces need a constant size`);
    }
    return { name: buffer.name, dtype: buffer.dtype, elements };
  }
}

function describeHostStmt(s: Stmt): string {
  switch (s.kind) {
    case "For":
      return `loop ${s.loopVar.name} (${s.forKind}, extent ${printExpr(s.extent)})`;
    case "BufferStore":
      return `the store to ${s.buffer.name}`;
    case "IfThenElse":
      return `the condition if ${printExpr(s.condition)}`;
    case "While":
      return `the loop while ${printExpr(s.condition)}`;
    case "LetStmt":
      return `the binding of ${s.variable.name}`;
    case "Evaluate":
      return `the call ${printExpr(s.value)}`;
    case "AttrStmt":
      return `the ${s.key} attribute of ${s.node?.name ?? "None"} (not nested in a blockIdx/threadIdx launch)`;
    case "BlockRealize":
      return `block ${s.block.name}`;
    default:
      return `a ${s.kind}`;
  }
}

function buildKernel(func: PrimFunc, name: string, nest: LaunchNest, workspaces: readonly WorkspaceAlloc[]): DeviceKernel {
  const uses = storageUses(nest.body);
  // A buffer the kernel only names by its data pointer (a T.ptx_cp_async source) is used too.
  const usedBuffer = (declared: Buffer): Buffer | undefined => uses.accessed.get(declared.data) ?? (uses.named.has(declared.data) ? declared : undefined);
  const params: DeviceKernelParam[] = [];
  func.params.forEach((p, index) => {
    const declared = func.bufferMap.get(p);
    if (declared === undefined) {
      if (usesVar(nest.body, (v) => v === p)) params.push({ kind: "scalar", name: p.name, var: p, dtype: p.dtype });
      return;
    }
    const buffer = usedBuffer(declared);
    if (buffer !== undefined) params.push({ kind: "buffer", name: declared.name, buffer, source: { kind: "param", index } });
  });
  workspaces.forEach((w, index) => {
    const buffer = usedBuffer(w.buffer);
    if (buffer !== undefined) params.push({ kind: "buffer", name: w.buffer.name, buffer, source: { kind: "workspace", index } });
  });
  checkGlobalAllocations(name, nest.body);
  const fail = (detail: string): never => {
    throw new LoweringError(PASS, `kernel ${name}: ${detail}`);
  };
  return makeDeviceKernel(name, params, nest.body, fail, [...functionLaunchBounds(func, fail), ...nest.launchBounds], tmaTensorsOf(func));
}

/**
 * Storage `body` uses without allocating it: buffers loaded or stored (by `data` variable), and
 * variables named in expressions (data pointers passed to intrinsics among them).
 */
function storageUses(body: Stmt): { accessed: Map<Var, Buffer>; named: Set<Var> } {
  const walk = new StorageUseWalker();
  walk.visitStmt(body);
  const out = new Map<Var, Buffer>();
  for (const b of walk.accessed) if (!walk.allocated.has(b.data) && !out.has(b.data)) out.set(b.data, b);
  return { accessed: out, named: walk.named };
}

/**
 * One walk collecting what `storageUses` needs. It only gathers sets, so a subtree met again (a
 * statement or expression object unrolled code repeats) is not walked again.
 */
class StorageUseWalker extends OnceVisitor {
  readonly allocated = new Set<Var>();
  /** Buffers stored to or loaded from, in the order met. */
  readonly accessed: Buffer[] = [];
  readonly named = new Set<Var>();

  protected override enterStmt(s: Stmt): void {
    if (s.kind === "Allocate") this.allocated.add(s.buffer.data);
    else if (s.kind === "BufferStore") this.accessed.push(s.buffer);
  }

  override visitBufferLoad(e: BufferLoad): void {
    this.accessed.push(e.buffer);
    super.visitBufferLoad(e);
  }

  override visitVar(v: Var): void {
    this.named.add(v);
  }
}

/** Global storage allocated inside a launch nest would be per block or per thread: not supported. */
function checkGlobalAllocations(kernel: string, body: Stmt): void {
  forEachStmt(body, (s) => {
    if (s.kind === "Allocate" && s.buffer.scope === "global") {
      throw new LoweringError(
        PASS,
        `kernel ${kernel}: global buffer ${s.buffer.name} is allocated inside the kernel; intermediates in global memory must be allocated outside every blockIdx/threadIdx binding`,
      );
    }
  });
}
