/**
 * MSL text of one lowered device kernel, laid out as TVM's Metal backend: `kernel void`, one
 * `device T*` per buffer parameter at `[[buffer(i)]]` in parameter order, the scalar parameters in
 * one struct passed by `constant` reference after them, `[[threadgroup_position_in_grid]]` as
 * blockIdx and `[[thread_position_in_threadgroup]]` as threadIdx, shared memory as `threadgroup`
 * arrays and barriers as `threadgroup_barrier(mem_flags::mem_threadgroup)`.
 */
import { SourceLines } from "../c-family/source-lines.js";
import { type Allocate, type BufferStore, type Evaluate, type For, type Stmt, bytesOf, lanesOf } from "@tessera/ir";
import { IndexFacts } from "../c-family/index-facts.js";
import { NameTable, isCIdentifier } from "../c-family/names.js";
import { type LaunchShape, launchShape } from "../cuda/launch.js";
import type { DeviceKernel } from "../lowered.js";
import { type MetalContext, MetalExprEmitter, fail } from "./expr-emitter.js";
import { METAL_RESERVED } from "./types.js";
import { checkSerialLoop, constantElements, evaluateKind, writtenStorage } from "../shader/kernel-parts.js";

export interface EmittedMetalKernel {
  readonly text: string;
  readonly shape: LaunchShape;
  readonly threadgroupBytes: number;
  readonly floorDivision: boolean;
}

class MetalKernelEmitter {
  private readonly out = new SourceLines();
  private readonly ctx: MetalContext;
  private readonly exprs: MetalExprEmitter;
  private threadgroupBytes = 0;

  constructor(
    private readonly kernel: DeviceKernel,
    private readonly shape: LaunchShape,
  ) {
    this.ctx = {
      kernelName: kernel.name,
      names: new NameTable(METAL_RESERVED),
      facts: new IndexFacts(),
      floorDivision: false,
      storage: new Map(),
      predefined: new Map(),
    };
    this.exprs = new MetalExprEmitter(this.ctx);
    for (const b of shape.bindings) {
      this.ctx.predefined.set(b.variable, `((${b.variable.dtype === "int64" ? "long" : "int"})${b.tag})`);
      this.ctx.facts.bindThread(b.variable, b.extent);
    }
  }

  emit(): EmittedMetalKernel {
    if (!isCIdentifier(this.kernel.name)) fail(this.ctx, "the kernel name is not a valid identifier");
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
        if (lanesOf(p.buffer.dtype) > 1) fail(this.ctx, `parameter ${p.name} has vector element type ${p.buffer.dtype}; parameters hold scalars`);
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

  private block(head: string, body: () => void): void {
    this.out.line(head === "" ? "{" : `${head} {`);
    this.out.nested(body);
  }

  private stmt(s: Stmt): void {
    switch (s.kind) {
      case "SeqStmt":
        for (const x of s.seq) this.stmt(x);
        return;
      case "AttrStmt":
        if (s.key.startsWith("async_")) fail(this.ctx, `the ${s.key} attribute (asynchronous copies) has no Metal translation`);
        return this.stmt(s.body);
      case "DeclBuffer":
        return this.stmt(s.body);
      case "Allocate":
        return this.allocate(s);
      case "For":
        return this.forLoop(s);
      case "IfThenElse":
        this.block(`if (${this.exprs.expr(s.condition)})`, () => this.stmt(s.thenCase));
        if (s.elseCase !== undefined) this.block("} else", () => this.stmt(s.elseCase!));
        return this.out.line("}");
      case "While":
        this.block(`while (${this.exprs.expr(s.condition)})`, () => this.stmt(s.body));
        return this.out.line("}");
      case "LetStmt": {
        const type = this.exprs.type(s.variable.dtype, `let variable ${s.variable.name}`);
        const value = lanesOf(s.value.dtype) > 1 ? this.exprs.vector(s.value) : this.exprs.expr(s.value);
        const name = this.ctx.names.define(s.variable, s.variable.name);
        this.ctx.facts.bindLet(s.variable, s.value);
        this.out.line(`${type} ${name} = ${value};`);
        return this.stmt(s.body);
      }
      case "BufferStore":
        return this.store(s);
      case "Evaluate":
        return this.evaluate(s);
      case "BlockRealize":
        return fail(this.ctx, `block ${s.block.name} was not lowered; the Metal generator needs lowered (block-free) kernels`);
    }
  }

  private allocate(s: Allocate): void {
    const { buffer } = s;
    const elements = constantElements(s, this.failure);
    const type = this.exprs.type(buffer.dtype, `allocation ${buffer.name}`);
    const name = this.ctx.names.define(buffer.data, buffer.name);
    this.ctx.storage.set(buffer.data, { name, dtype: buffer.dtype });
    if (buffer.scope === "shared" || buffer.scope === "shared.dyn") {
      this.threadgroupBytes += elements * bytesOf(buffer.dtype);
      this.out.line(`threadgroup ${type} ${name}[${elements}];`);
    } else if (buffer.scope === "local") {
      this.out.line(`${type} ${name}[${elements}];`);
    } else {
      fail(this.ctx, `allocation ${buffer.name} has scope ${buffer.scope}; a kernel allocates only shared or local storage`);
    }
    this.stmt(s.body);
  }

  private forLoop(s: For): void {
    checkSerialLoop(s, this.failure);
    const type = this.exprs.type(s.loopVar.dtype, `loop variable ${s.loopVar.name}`);
    const name = this.ctx.names.define(s.loopVar, s.loopVar.name);
    this.ctx.facts.bindLoop(s.loopVar, s.min, s.extent);
    const min = this.exprs.expr(s.min);
    const end = s.min.kind === "IntImm" && s.extent.kind === "IntImm" ? String(s.min.value + s.extent.value) : `(${min} + ${this.exprs.expr(s.extent)})`;
    this.block(`for (${type} ${name} = ${min}; ${name} < ${end}; ++${name})`, () => this.stmt(s.body));
    this.out.line("}");
  }

  private store(s: BufferStore): void {
    const index = s.indices[0];
    const name = this.exprs.storageOf(s);
    if (index === undefined) return;
    const lanes = lanesOf(s.value.dtype);
    if (lanes === 1 || lanesOf(index.dtype) === 1) {
      return this.out.line(`${name}[${this.exprs.expr(index)}] = ${lanes === 1 ? this.exprs.expr(s.value) : this.exprs.vector(s.value)};`);
    }
    // Every lane is computed before the first is stored: the value may read what it overwrites.
    const type = this.exprs.type(s.buffer.dtype, `buffer ${s.buffer.name}`);
    this.block("", () => {
      const temps = Array.from({ length: lanes }, (_, i) => {
        const t = this.ctx.names.fresh(`${name}_lane${i}`);
        this.out.line(`${type} ${t} = ${this.exprs.lane(s.value, i)};`);
        return t;
      });
      temps.forEach((t, i) => this.out.line(`${name}[${this.exprs.lane(index, i)}] = ${t};`));
    });
    this.out.line("}");
  }

  private evaluate(s: Evaluate): void {
    const what = evaluateKind(s.value, "Metal", this.failure);
    if (what.kind === "none") return;
    if (what.kind === "expr") return this.out.line(`${this.exprs.expr(s.value)};`);
    if (what.scope === "shared" || what.scope === "shared.dyn") return this.out.line("threadgroup_barrier(mem_flags::mem_threadgroup);");
    if (what.scope === "warp") return this.out.line("simdgroup_barrier(mem_flags::mem_none);");
    fail(this.ctx, `T.tvm_storage_sync(${JSON.stringify(what.scope)}) has no Metal translation (only "shared" and "warp")`);
  }

  private readonly failure = (detail: string): never => fail(this.ctx, detail);
}

export function emitMetalKernel(kernel: DeviceKernel): EmittedMetalKernel {
  return new MetalKernelEmitter(kernel, launchShape(kernel)).emit();
}
