/**
 * MSL text of one lowered device kernel, laid out as TVM's Metal backend: `kernel void`, one
 * `device T*` per buffer parameter at `[[buffer(i)]]` in parameter order, the scalar parameters in
 * one struct passed by `constant` reference after them, `[[threadgroup_position_in_grid]]` as
 * blockIdx and `[[thread_position_in_threadgroup]]` as threadIdx, shared memory as `threadgroup`
 * arrays and barriers as `threadgroup_barrier(mem_flags::mem_threadgroup)`.
 */
import { type Allocate, type PrimExpr, bytesOf, lanesOf } from "@tessera/ir";
import { IndexFacts } from "../c-family/index-facts.js";
import { NameTable, isCIdentifier } from "../c-family/names.js";
import { type LaunchShape, launchShape } from "../cuda/launch.js";
import type { DeviceKernel } from "../lowered.js";
import { constantElements, writtenStorage } from "../shader/kernel-parts.js";
import { StmtWalker } from "../walker/stmt-walker.js";
import { type MetalContext, MetalExprEmitter } from "./expr-emitter.js";
import { METAL_RESERVED } from "./types.js";

export interface EmittedMetalKernel {
  readonly text: string;
  readonly shape: LaunchShape;
  readonly threadgroupBytes: number;
  readonly floorDivision: boolean;
}

class MetalKernelEmitter extends StmtWalker<MetalContext, MetalExprEmitter> {
  protected readonly language = "Metal";
  protected readonly barrierScopes = ["shared", "warp"] as const;
  private threadgroupBytes = 0;

  constructor(
    private readonly kernel: DeviceKernel,
    private readonly shape: LaunchShape,
  ) {
    const ctx: MetalContext = {
      kernelName: kernel.name,
      names: new NameTable(METAL_RESERVED),
      facts: new IndexFacts(),
      floorDivision: false,
      storage: new Map(),
      predefined: new Map(),
    };
    super(ctx, new MetalExprEmitter(ctx));
    for (const b of shape.bindings) {
      this.ctx.predefined.set(b.variable, `((${b.variable.dtype === "int64" ? "long" : "int"})${b.tag})`);
      this.ctx.facts.bindThread(b.variable, b.extent);
    }
  }

  emit(): EmittedMetalKernel {
    if (!isCIdentifier(this.kernel.name)) this.fail("the kernel name is not a valid identifier");
    const { params, struct } = this.signature();
    this.stmt(this.kernel.body);
    const text = [...struct, `kernel void ${this.kernel.name}(${params.join(", ")}) {`, ...this.out.lines, "}"].join("\n");
    return { text, shape: this.shape, threadgroupBytes: this.threadgroupBytes, floorDivision: this.ctx.floorDivision };
  }

  private signature(): { params: string[]; struct: string[] } {
    const written = writtenStorage(this.kernel.body);
    const params: string[] = [];
    const members: string[] = [];
    for (const p of this.kernel.params) {
      if (p.kind === "buffer") {
        if (lanesOf(p.buffer.dtype) > 1) this.fail(`parameter ${p.name} has vector element type ${p.buffer.dtype}; parameters hold scalars`);
        const type = this.exprs.type(p.buffer.dtype, `parameter ${p.name}`);
        const name = this.ctx.names.define(p.buffer.data, p.name);
        this.ctx.storage.set(p.buffer.data, { name, dtype: p.buffer.dtype });
        const qualifier = written.has(p.buffer.data) ? "device" : "device const";
        params.push(`${qualifier} ${type}* ${name} [[buffer(${params.length})]]`);
      } else {
        const type = this.exprs.type(p.dtype, `parameter ${p.name}`);
        const name = this.ctx.names.define(p.var, p.name);
        this.ctx.predefined.set(p.var, `args.${name}`);
        members.push(`  ${type} ${name};`);
      }
    }
    const structName = `${this.kernel.name}_args_t`;
    if (members.length > 0) params.push(`constant ${structName}& args [[buffer(${params.length})]]`);
    params.push("uint3 blockIdx [[threadgroup_position_in_grid]]", "uint3 threadIdx [[thread_position_in_threadgroup]]");
    return { params, struct: members.length === 0 ? [] : [`struct ${structName} {`, ...members, "};", ""] };
  }

  protected allocate(s: Allocate): void {
    const { buffer } = s;
    const elements = constantElements(s, (detail) => this.fail(detail));
    const type = this.exprs.type(buffer.dtype, `allocation ${buffer.name}`);
    const name = this.ctx.names.define(buffer.data, buffer.name);
    this.ctx.storage.set(buffer.data, { name, dtype: buffer.dtype });
    if (buffer.scope === "shared" || buffer.scope === "shared.dyn") {
      this.threadgroupBytes += elements * bytesOf(buffer.dtype);
      this.out.line(`threadgroup ${type} ${name}[${elements}];`);
    } else if (buffer.scope === "local") {
      this.out.line(`${type} ${name}[${elements}];`);
    } else {
      this.fail(`allocation ${buffer.name} has scope ${buffer.scope}; a kernel allocates only shared or local storage`);
    }
    this.walkAllocationBody(s);
  }

  protected conditionalHead(keyword: "if" | "while", condition: PrimExpr): string {
    return `${keyword} (${this.exprs.expr(condition)})`;
  }

  protected barrier(scope: string): string | undefined {
    if (scope === "shared" || scope === "shared.dyn") return "threadgroup_barrier(mem_flags::mem_threadgroup);";
    return scope === "warp" ? "simdgroup_barrier(mem_flags::mem_none);" : undefined;
  }
}

export function emitMetalKernel(kernel: DeviceKernel): EmittedMetalKernel {
  return new MetalKernelEmitter(kernel, launchShape(kernel)).emit();
}
