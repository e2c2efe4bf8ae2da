/**
 * Compiles a PrimFunc to a JS function (through `new Function`) and runs it on typed arrays.
 */
import type { PrimFunc } from "../func.js";
import { type ArgumentPlan, type ArgumentValue, type ParamInfo, describeBufferType, marshalArguments, planArguments } from "./arguments.js";
import { declareBufferLayout } from "./buffer-layout.js";
import { EmitContext, type EmitHooks } from "./context.js";
import { ExecutionError } from "./errors.js";
import { emitStmt } from "./emit-stmt.js";
import { makeRuntime } from "./runtime.js";
import { LoopOutliner, constantStorageSize } from "./outline-loops.js";
import { typedArrayConstructorFor } from "./typed-arrays.js";
import { RUNTIME_PRELUDE } from "./scalar-ops.js";

export interface CompileOptions {
  /** Check every buffer index against its dimension at run time (default true). */
  boundsCheck?: boolean;
  /**
   * Keep the checks of indices proven in range at compile time (default false: they are dropped).
   * Only useful to measure what unconditional checking costs.
   */
  checkProvenIndices?: boolean;
  /**
   * Emit each loop as a function of its own, and reuse one array per constant-size allocation site
   * inside a loop (default true; see outline-loops.ts). False emits one function, as before: the
   * same results and errors, kept to cross-check the two.
   */
  outlineLoops?: boolean;
}

/** Allocation sites inside loops with more elements than this get a fresh array each time (not kept alive by the compiled function). */
const MAX_SCRATCH_ELEMENTS = 1 << 20;

export interface CompiledPrimFunc {
  /** The generated JS, for inspection. */
  readonly source: string;
  /** One entry per PrimFunc parameter, in order: what `run` expects. */
  readonly params: readonly ParamInfo[];
  /** Runs the function: a typed array per buffer parameter, a number per scalar parameter. */
  run(args: Array<ArgumentValue>): void;
}

type GeneratedFunction = (...values: unknown[]) => void;

export function compilePrimFunc(func: PrimFunc, opts: CompileOptions = {}): CompiledPrimFunc {
  const plan = planArguments(func);
  const outliner = opts.outlineLoops === false ? undefined : new LoopOutliner({ extraNames: ["$async"] });
  const ctx = new EmitContext(opts.boundsCheck ?? true, opts.checkProvenIndices ?? false, outliner === undefined ? {} : outliningHooks(outliner));
  const jsParams = bindParameters(ctx, plan);
  emitStmt(ctx, func.body);
  const source = assembleSource(ctx, plan.funcName, jsParams, outliner?.declarations() ?? []);
  let generated: GeneratedFunction;
  try {
    // eslint-disable-next-line @typescript-eslint/no-implied-eval -- compiling to JS is the point
    const factory = new Function("$rt", source) as (rt: unknown) => GeneratedFunction;
    generated = factory(makeRuntime(ctx.sites));
  } catch (err) {
    throw new ExecutionError(`${plan.funcName}: the generated JS does not compile (${String(err)}):\n${source}`);
  }
  return {
    source,
    params: plan.params,
    run(args) {
      generated(...marshalArguments(plan, args));
    },
  };
}

/** Compiles (with bounds checks) and runs once. */
export function runPrimFunc(func: PrimFunc, args: Array<ArgumentValue>): void {
  compilePrimFunc(func).run(args);
}

/** Loops outlined into functions of their own; a constant-size allocation inside one reuses a zero-filled array per site. */
function outliningHooks(outliner: LoopOutliner): EmitHooks {
  return {
    loop: outliner.loop,
    allocation(ctx, buffer, size) {
      if (!outliner.outlining) return undefined;
      const elements = constantStorageSize(size);
      if (elements === undefined || elements > MAX_SCRATCH_ELEMENTS) return undefined;
      return `${outliner.scratchArray(ctx, typedArrayConstructorFor(buffer.dtype).name, elements)}.fill(0)`;
    },
  };
}

/** Names the JS parameters (arrays, scalars, inferred shape variables) and declares parameter buffers. */
function bindParameters(ctx: EmitContext, plan: ArgumentPlan): string[] {
  const names: string[] = [];
  for (const p of plan.params) {
    if (p.buffer === undefined) {
      names.push(ctx.bindVar(p.param).name);
    } else {
      const array = ctx.names.fresh(p.buffer.name);
      ctx.setArray(p.buffer.data, array, p.buffer);
      names.push(array);
    }
  }
  for (const v of plan.inferredVars) names.push(ctx.bindVar(v).name);
  for (const p of plan.params) {
    if (p.buffer === undefined) continue;
    ctx.line(`// ${p.buffer.name}: ${describeBufferType(p.buffer)}`);
    declareBufferLayout(ctx, p.buffer, ctx.arrayOf(p.buffer.data)!);
  }
  return names;
}

/** The JavaScript of a compiled function: the runtime prelude, then `function name(params)` with the emitted body. */
export function assembleSource(ctx: EmitContext, funcName: string, params: readonly string[], declarations: readonly string[] = []): string {
  const jsName = funcName.replace(/[^A-Za-z0-9_$]/g, "_").replace(/^(?=[0-9])/, "_");
  return [
    '"use strict";',
    ...RUNTIME_PRELUDE,
    ...declarations,
    `return function ${jsName}(${params.join(", ")}) {`,
    ...ctx.prologueLines(),
    ...ctx.bodyLines(),
    "};",
    "",
  ].join("\n");
}
