/**
 * What the CUDA, WGSL and Metal kernel generators check and look up the same way: flat accesses to
 * known storage, constant allocation sizes, loops left serial, barrier scopes, `let` texts.
 */
import { type Allocate, type BufferLoad, type DType, type For, type PrimExpr, type Stmt, type Var, constantSize, forEachStmt } from "@tessera/ir";

type Fail = (detail: string) => never;

/** The data variables of the storage `body` stores to. */
export function writtenStorage(body: Stmt): Set<Var> {
  const out = new Set<Var>();
  forEachStmt(body, (s) => {
    if (s.kind === "BufferStore") out.add(s.buffer.data);
  });
  return out;
}

/**
 * The storage a load or store uses, checking the access is flat, at offset 0, of storage the
 * kernel knows (a parameter or allocation) and of its element type.
 */
export function flatStorage<S extends { readonly name: string; readonly dtype: DType }>(
  access: { buffer: BufferLoad["buffer"]; indices: readonly PrimExpr[] },
  storage: ReadonlyMap<Var, S>,
  language: string,
  fail: Fail,
): S {
  const { buffer } = access;
  if (access.indices.length !== 1) fail(`buffer ${buffer.name} is accessed with ${access.indices.length} indices; lowered kernels use flat buffers`);
  if (!(buffer.elemOffset.kind === "IntImm" && buffer.elemOffset.value === 0)) {
    fail(`buffer ${buffer.name} has a non-zero element offset, which the ${language} generator does not support`);
  }
  const found = storage.get(buffer.data);
  if (found === undefined) fail(`buffer ${buffer.name} is neither a kernel parameter nor allocated in the kernel`);
  if (found.dtype !== buffer.dtype)
    fail(`buffer ${buffer.name} views ${found.name} (${found.dtype}) as ${buffer.dtype}; reinterpreting views are not supported`);
  return found;
}

/** The allocation's constant number of elements; a symbolic size is refused. */
export function constantElements(s: Allocate, fail: Fail): number {
  const elements = constantSize(s.buffer);
  if (elements === undefined) fail(`allocation ${s.buffer.name} (${s.buffer.scope}) has a symbolic size; shader arrays need a constant size`);
  return elements;
}

/** Refuses a loop lowering should have turned into thread indices. */
export function checkSerialLoop(s: For, fail: Fail): void {
  if (s.forKind === "thread_binding" || s.forKind === "parallel") {
    fail(`loop ${s.loopVar.name} is still a ${s.forKind} loop; lowering turns thread bindings into thread_extent attributes`);
  }
}

/** What an `Evaluate` statement is: a barrier (with its scope), nothing to print, or an expression. */
export function evaluateKind(v: PrimExpr, language: string, fail: Fail): { kind: "barrier"; scope: string } | { kind: "none" } | { kind: "expr" } {
  if (v.kind === "Call" && v.op === "tvm_storage_sync") return { kind: "barrier", scope: v.args[0]?.kind === "StringImm" ? v.args[0].value : "?" };
  // An assumption informs the simplifier only (TVM's RemoveAssume drops it likewise).
  if (v.kind === "IntImm" || (v.kind === "Call" && v.op === "assume")) return { kind: "none" };
  if (v.kind === "Call" && (v.op.startsWith("ptx_") || v.op.includes("cp_async"))) fail(`T.${v.op} (a PTX instruction) has no ${language} translation`);
  return { kind: "expr" };
}

/** Texts substituted for `Let`-bound variables while their body is printed (let values are pure). */
export class LetTexts {
  private readonly texts = new Map<Var, string>();

  get(v: Var): string | undefined {
    return this.texts.get(v);
  }

  with<T>(v: Var, text: string, body: () => T): T {
    this.texts.set(v, text);
    try {
      return body();
    } finally {
      this.texts.delete(v);
    }
  }
}
