/**
 * WGSL text of one lowered device kernel: a complete shader module with one compute entry point.
 * Layout as TVM's WebGPU backend: one storage buffer per buffer parameter (`@group(0)
 * @binding(i)`, in parameter order), the scalar parameters in one uniform struct bound after them,
 * `@builtin(workgroup_id)` as blockIdx and `@builtin(local_invocation_id)` as threadIdx, shared
 * memory as module-scope `var<workgroup>` arrays and barriers as `workgroupBarrier()`.
 */
import { type Allocate, type For, type PrimExpr, type Var, bytesOf, lanesOf } from "@tessera/ir";
import { IndexFacts } from "../c-family/index-facts.js";
import { NameTable } from "../c-family/names.js";
import { type LaunchShape, launchShape } from "../cuda/launch.js";
import type { DeviceKernel } from "../lowered.js";
import { constantElements, writtenStorage } from "../shader/kernel-parts.js";
import type { WebGpuTarget } from "../targets/gpu-source.js";
import { StmtWalker } from "../walker/stmt-walker.js";
import type { WgslContext } from "./context.js";
import { WgslExprEmitter } from "./expr-emitter.js";
import type { WgslBinding } from "./launch.js";
import { WGSL_RESERVED, isHostShareable } from "./types.js";
import { planVectorViews } from "./vector-views.js";

export interface EmittedWgslKernel {
  readonly source: string;
  readonly shape: LaunchShape;
  readonly bindings: readonly WgslBinding[];
  /** Bytes of `var<workgroup>` arrays. */
  readonly workgroupBytes: number;
}

class WgslKernelEmitter extends StmtWalker<WgslContext, WgslExprEmitter> {
  protected readonly language = "WGSL";
  protected readonly barrierScopes = ["shared"] as const;
  private readonly moduleVars: string[] = [];
  private workgroupBytes = 0;
  /** Arrays declared as vec4 arrays (vector-views.ts). */
  private readonly views: ReadonlySet<Var>;

  constructor(
    private readonly kernel: DeviceKernel,
    private readonly shape: LaunchShape,
    target: WebGpuTarget,
  ) {
    const ctx: WgslContext = {
      kernelName: kernel.name,
      target,
      names: new NameTable(WGSL_RESERVED),
      facts: new IndexFacts(),
      features: new Set(),
      storage: new Map(),
      predefined: new Map(),
    };
    super(ctx, new WgslExprEmitter(ctx));
    this.views = planVectorViews(
      kernel.body,
      kernel.params.flatMap((p) => (p.kind === "buffer" ? [{ data: p.buffer.data, dtype: p.buffer.dtype }] : [])),
    );
    for (const b of shape.bindings) {
      if (b.variable.dtype !== "int32") this.fail(`${b.tag} has dtype ${b.variable.dtype}; WGSL thread indices are 32-bit (use int32)`);
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
      this.fail("the kernel name is not a valid WGSL identifier");
    }
    const written = writtenStorage(this.kernel.body);
    const bindings: WgslBinding[] = [];
    const scalars: string[] = [];
    for (const p of this.kernel.params) {
      if (p.kind === "buffer") {
        const what = `parameter ${p.name}`;
        if (!isHostShareable(p.buffer.dtype)) this.fail(`${what} has dtype ${p.buffer.dtype}, which a WGSL storage buffer cannot hold`);
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
          this.fail(`scalar parameter ${p.name} has dtype ${p.dtype}; a WGSL uniform holds i32, u32 or f32`);
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

  protected allocate(s: Allocate): void {
    const { buffer } = s;
    const elements = constantElements(s, (detail) => this.fail(detail));
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
        this.fail(`allocation ${buffer.name} has scope ${buffer.scope}; a kernel allocates only shared or local storage`);
    }
    this.walkAllocationBody(s);
  }

  protected override loopHead(_s: For, type: string, name: string, min: string, end: string): readonly string[] {
    return [`for (var ${name} : ${type} = ${min}; ${name} < ${end}; ${name}++) {`];
  }

  protected conditionalHead(keyword: "if" | "while", condition: PrimExpr): string {
    return `${keyword} ${this.exprs.condition(condition)}`;
  }

  /** WGSL has no `#pragma unroll`: unrolled loops are written out, their variable a `const`. */
  protected override unrolledCopyBinding(type: string, name: string, value: string): string {
    return `const ${name} : ${type} = ${value};`;
  }

  protected override constant(type: string, name: string, value: string): string {
    return `let ${name} : ${type} = ${value};`;
  }

  protected barrier(scope: string): string | undefined {
    return scope === "shared" || scope === "shared.dyn" ? "workgroupBarrier();" : undefined;
  }

  /** WGSL discards a value only by assigning it to `_`. */
  protected override expressionStatement(text: string): string {
    return `_ = ${text};`;
  }
}

/** Emits one kernel as a WGSL shader module; `target` supplies f16 support. */
export function emitWgslKernel(kernel: DeviceKernel, target: WebGpuTarget): EmittedWgslKernel {
  return new WgslKernelEmitter(kernel, launchShape(kernel), target).emit();
}
