/**
 * WGSL text of one lowered device kernel: a complete shader module with one compute entry point.
 * Layout as TVM's WebGPU backend: one storage buffer per buffer parameter (`@group(0)
 * @binding(i)`, in parameter order), the scalar parameters in one uniform struct bound after them,
 * `@builtin(workgroup_id)` as blockIdx and `@builtin(local_invocation_id)` as threadIdx, shared
 * memory as module-scope `var<workgroup>` arrays and barriers as `workgroupBarrier()`.
 */
import { SourceLines } from "../c-family/source-lines.js";
import { type Allocate, type BufferStore, type Evaluate, type For, type Stmt, type Var, bytesOf, lanesOf } from "@tessera/ir";
import { IndexFacts } from "../c-family/index-facts.js";
import { NameTable } from "../c-family/names.js";
import { type LaunchShape, launchShape } from "../cuda/launch.js";
import type { DeviceKernel } from "../lowered.js";
import type { WebGpuTarget } from "../targets/gpu-source.js";
import { type WgslContext, fail } from "./context.js";
import { WgslExprEmitter } from "./expr-emitter.js";
import { WGSL_RESERVED, isHostShareable } from "./types.js";
import type { WgslBinding } from "./launch.js";
import { planVectorViews } from "./vector-views.js";
import { checkSerialLoop, constantElements, evaluateKind, writtenStorage } from "../shader/kernel-parts.js";

export interface EmittedWgslKernel {
  readonly source: string;
  readonly shape: LaunchShape;
  readonly bindings: readonly WgslBinding[];
  /** Bytes of `var<workgroup>` arrays. */
  readonly workgroupBytes: number;
}

class WgslKernelEmitter {
  private readonly out = new SourceLines();
  private readonly moduleVars: string[] = [];
  private readonly ctx: WgslContext;
  private readonly exprs: WgslExprEmitter;
  private workgroupBytes = 0;
  /** Arrays declared as vec4 arrays (vector-views.ts). */
  private readonly views: ReadonlySet<Var>;

  constructor(
    private readonly kernel: DeviceKernel,
    private readonly shape: LaunchShape,
    target: WebGpuTarget,
  ) {
    this.ctx = {
      kernelName: kernel.name,
      target,
      names: new NameTable(WGSL_RESERVED),
      facts: new IndexFacts(),
      features: new Set(),
      storage: new Map(),
      predefined: new Map(),
    };
    this.exprs = new WgslExprEmitter(this.ctx);
    this.views = planVectorViews(
      kernel.body,
      kernel.params.flatMap((p) => (p.kind === "buffer" ? [{ data: p.buffer.data, dtype: p.buffer.dtype }] : [])),
    );
    for (const b of shape.bindings) {
      if (b.variable.dtype !== "int32") fail(this.ctx, `${b.tag} has dtype ${b.variable.dtype}; WGSL thread indices are 32-bit (use int32)`);
      const [builtin, dim] = b.tag.split(".");
      this.ctx.predefined.set(b.variable, `i32(${builtin}.${dim})`);
      this.ctx.facts.bindThread(b.variable, b.extent);
    }
  }

  emit(): EmittedWgslKernel {
    const bindings = this.declareParams();
    this.stmt(this.kernel.body);
    const [x, y, z] = this.shape.block;
    const entry = [
      `@compute @workgroup_size(${x}, ${y}, ${z})`,
      `fn ${this.kernel.name}(@builtin(workgroup_id) blockIdx : vec3<u32>, @builtin(local_invocation_id) threadIdx : vec3<u32>) {`,
      ...this.out.lines,
      "}",
    ];
    const source = [...this.header(), ...this.moduleVars, "", ...entry].join("\n");
    return { source: `${source}\n`, shape: this.shape, bindings, workgroupBytes: this.workgroupBytes };
  }

  private header(): string[] {
    const out: string[] = [];
    const f = this.ctx.features;
    if (f.has("f16")) out.push("enable f16;", "");
    if (f.has("nonfinite")) {
      // Bits of +inf, -inf and NaN, read at run time: a constant expression may not be non-finite.
      out.push("var<private> tessera_bits : vec3<u32> = vec3<u32>(0x7f800000u, 0xff800000u, 0x7fc00000u);", "");
    }
    if (f.has("floordiv")) {
      out.push(
        "fn tessera_floordiv(a : i32, b : i32) -> i32 {",
        "  let q = a / b;",
        "  return select(q, q - 1i, (a % b != 0i) && ((a < 0i) != (b < 0i)));",
        "}",
        "",
        "fn tessera_floormod(a : i32, b : i32) -> i32 {",
        "  let r = a % b;",
        "  return select(r, r + b, (r != 0i) && ((r < 0i) != (b < 0i)));",
        "}",
        "",
      );
    }
    return out;
  }

  private declareParams(): WgslBinding[] {
    if (!/^[A-Za-z][A-Za-z0-9_]*$/.test(this.kernel.name) || this.kernel.name.includes("__")) {
      fail(this.ctx, "the kernel name is not a valid WGSL identifier");
    }
    const written = writtenStorage(this.kernel.body);
    const bindings: WgslBinding[] = [];
    const scalars: string[] = [];
    for (const p of this.kernel.params) {
      if (p.kind === "buffer") {
        const what = `parameter ${p.name}`;
        if (!isHostShareable(p.buffer.dtype)) fail(this.ctx, `${what} has dtype ${p.buffer.dtype}, which a WGSL storage buffer cannot hold`);
        const vec4 = this.views.has(p.buffer.data);
        const element = this.exprs.type(p.buffer.dtype, what);
        const type = vec4 ? `vec4<${element}>` : element;
        const name = this.ctx.names.define(p.buffer.data, p.name);
        this.ctx.storage.set(p.buffer.data, { name, dtype: p.buffer.dtype, vec4 });
        const access = written.has(p.buffer.data) ? "read_write" : "read";
        const binding = bindings.length;
        this.moduleVars.push(`@group(0) @binding(${binding}) var<storage, ${access}> ${name} : array<${type}>;`);
        bindings.push({ binding, kind: "buffer", name: p.name, dtype: p.buffer.dtype, access, source: p.source });
      } else {
        if (!isHostShareable(p.dtype) || lanesOf(p.dtype) > 1)
          fail(this.ctx, `scalar parameter ${p.name} has dtype ${p.dtype}; a WGSL uniform holds i32, u32 or f32`);
        const type = this.exprs.type(p.dtype, `parameter ${p.name}`);
        const name = this.ctx.names.define(p.var, p.name);
        this.ctx.predefined.set(p.var, `scalars.${name}`);
        scalars.push(`  ${name} : ${type},`);
      }
    }
    if (scalars.length > 0) {
      const binding = bindings.length;
      this.moduleVars.push("struct Scalars {", ...scalars, "}", `@group(0) @binding(${binding}) var<uniform> scalars : Scalars;`);
      bindings.push({
        binding,
        kind: "uniform",
        name: "scalars",
        members: this.kernel.params.flatMap((p) => (p.kind === "scalar" ? [{ name: p.name, dtype: p.dtype }] : [])),
      });
    }
    return bindings;
  }

  private stmt(s: Stmt): void {
    switch (s.kind) {
      case "SeqStmt":
        for (const x of s.seq) this.stmt(x);
        return;
      case "AttrStmt":
        if (s.key === "async_scope" || s.key.startsWith("async_")) fail(this.ctx, `the ${s.key} attribute (asynchronous copies) has no WGSL translation`);
        return this.stmt(s.body);
      case "DeclBuffer":
        return this.stmt(s.body);
      case "Allocate":
        return this.allocate(s);
      case "For":
        return this.forLoop(s);
      case "IfThenElse":
        this.out.line(`if ${this.exprs.condition(s.condition)} {`);
        this.out.nested(() => this.stmt(s.thenCase));
        if (s.elseCase !== undefined) {
          this.out.line("} else {");
          this.out.nested(() => this.stmt(s.elseCase!));
        }
        return this.out.line("}");
      case "While":
        this.out.line(`while ${this.exprs.condition(s.condition)} {`);
        this.out.nested(() => this.stmt(s.body));
        return this.out.line("}");
      case "LetStmt": {
        const type = this.exprs.type(s.variable.dtype, `let variable ${s.variable.name}`);
        const value = lanesOf(s.value.dtype) > 1 ? this.exprs.vector(s.value) : this.exprs.expr(s.value);
        const name = this.ctx.names.define(s.variable, s.variable.name);
        this.ctx.facts.bindLet(s.variable, s.value);
        this.out.line(`let ${name} : ${type} = ${value};`);
        return this.stmt(s.body);
      }
      case "BufferStore":
        return this.store(s);
      case "Evaluate":
        return this.evaluate(s);
      case "BlockRealize":
        return fail(this.ctx, `block ${s.block.name} was not lowered; the WGSL generator needs lowered (block-free) kernels`);
    }
  }

  private allocate(s: Allocate): void {
    const { buffer } = s;
    const elements = constantElements(s, this.failure);
    const vec4 = this.views.has(buffer.data);
    const element = this.exprs.type(buffer.dtype, `allocation ${buffer.name}`);
    const [type, length] = vec4 ? [`vec4<${element}>`, elements / 4] : [element, elements];
    const name = this.ctx.names.define(buffer.data, buffer.name);
    this.ctx.storage.set(buffer.data, { name, dtype: buffer.dtype, vec4 });
    switch (buffer.scope) {
      case "shared":
      case "shared.dyn":
        // WGSL has no dynamically sized workgroup memory; the lowered size is constant anyway.
        this.workgroupBytes += elements * bytesOf(buffer.dtype);
        this.moduleVars.push(`var<workgroup> ${name} : array<${type}, ${length}>;`);
        break;
      case "local":
        this.out.line(`var ${name} : array<${type}, ${length}>;`);
        break;
      default:
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
    const end =
      s.min.kind === "IntImm" && s.extent.kind === "IntImm"
        ? this.exprs.intLiteral(s.min.value + s.extent.value, s.loopVar.dtype)
        : `(${min} + ${this.exprs.expr(s.extent)})`;
    this.out.line(`for (var ${name} : ${type} = ${min}; ${name} < ${end}; ${name}++) {`);
    this.out.nested(() => this.stmt(s.body));
    this.out.line("}");
  }

  private store(s: BufferStore): void {
    const index = s.indices[0];
    const name = this.exprs.storageOf(s);
    if (index === undefined) return;
    const valueLanes = lanesOf(s.value.dtype);
    if (valueLanes === 1) return this.out.line(`${this.exprs.element(s, this.exprs.expr(index))} = ${this.exprs.expr(s.value)};`);
    if (lanesOf(index.dtype) === 1) return this.out.line(`${name}[${this.exprs.expr(index)}] = ${this.exprs.vector(s.value)};`);
    const quad = this.exprs.quadAccess(s);
    if (quad !== undefined) return this.out.line(`${quad} = ${this.exprs.vector(s.value)};`);
    // A vector store to a scalar array: every lane is computed before the first is stored (the value may read what it overwrites).
    const type = this.exprs.type(s.buffer.dtype, `buffer ${s.buffer.name}`);
    this.out.line("{");
    this.out.nested(() => {
      const temps = Array.from({ length: valueLanes }, (_, i) => {
        const t = this.ctx.names.fresh(`${name}_lane${i}`);
        this.out.line(`let ${t} : ${type} = ${this.exprs.lane(s.value, i)};`);
        return t;
      });
      temps.forEach((t, i) => this.out.line(`${this.exprs.element(s, this.exprs.lane(index, i))} = ${t};`));
    });
    this.out.line("}");
  }

  private evaluate(s: Evaluate): void {
    const what = evaluateKind(s.value, "WGSL", this.failure);
    if (what.kind === "none") return;
    if (what.kind === "expr") return this.out.line(`_ = ${this.exprs.expr(s.value)};`);
    if (what.scope === "shared" || what.scope === "shared.dyn") return this.out.line("workgroupBarrier();");
    fail(this.ctx, `T.tvm_storage_sync(${JSON.stringify(what.scope)}) has no WGSL translation (only "shared")`);
  }

  private readonly failure = (detail: string): never => fail(this.ctx, detail);
}

/** Emits one kernel as a WGSL shader module; `target` supplies f16 support. */
export function emitWgslKernel(kernel: DeviceKernel, target: WebGpuTarget): EmittedWgslKernel {
  return new WgslKernelEmitter(kernel, launchShape(kernel), target).emit();
}
