/**
 * The registry of tensor intrinsics (TVM's `TensorIntrin`): a description (a PrimFunc whose body
 * computes what the hardware instruction computes, as ordinary TensorIR) and an implementation
 * (a PrimFunc with the same buffer parameters whose body performs it, usually through opaque
 * calls), registered under a name that `Schedule.tensorize` looks up.
 */
import { type Buffer, type PrimFunc, TesseraError, paramBuffers, parsePrimFunc } from "@tessera/ir";

/** A bad registration or lookup (TVM raises ValueError for both). */
export class TensorIntrinError extends TesseraError {
  override name = "TensorIntrinError";
}

const registry = new Map<string, TensorIntrin>();
/** Built-in intrinsics, parsed on first use (so that importing the package parses nothing). */
const builtins = new Map<string, () => BuiltinTensorIntrin>();

/** A built-in intrinsic's TVMScript and, optionally, what to tell a user whose loop does not match it. */
export interface BuiltinTensorIntrin {
  readonly desc: string;
  readonly impl: string;
  readonly mismatchHint?: string;
}

/** Declares a built-in intrinsic whose TVMScript `build` returns; it is registered when first looked up. */
export function defineBuiltinTensorIntrin(name: string, build: () => BuiltinTensorIntrin): void {
  if (builtins.has(name)) throw new TensorIntrinError(`built-in TensorIntrin "${name}" defined twice`);
  builtins.set(name, build);
}

export class TensorIntrin {
  private constructor(
    readonly name: string,
    readonly desc: PrimFunc,
    readonly impl: PrimFunc,
    /** Appended to a tensorize mismatch (not TVM's): the usual cause, e.g. an operand layout the instruction cannot read. */
    readonly mismatchHint?: string,
  ) {}

  /**
   * Registers `desc` and `impl` (PrimFuncs, or TVMScript text of one function each) under `name`.
   * Throws `TensorIntrinError` for a name already registered (unless `override`), parameters that
   * are not buffers or differ in number, dtype or rank, and bodies that are not one block with the
   * regions of every parameter.
   */
  static register(name: string, desc: PrimFunc | string, impl: PrimFunc | string, opts: { override?: boolean; mismatchHint?: string } = {}): TensorIntrin {
    if (TensorIntrin.has(name) && opts.override !== true) throw new TensorIntrinError(`TensorIntrin "${name}" has already been registered`);
    const intrin = new TensorIntrin(name, asFunc(name, "description", desc), asFunc(name, "implementation", impl), opts.mismatchHint);
    checkPair(intrin);
    registry.set(name, intrin);
    return intrin;
  }

  /** The intrinsic registered as `name`; throws `TensorIntrinError` when there is none. */
  static get(name: string): TensorIntrin {
    const build = registry.has(name) ? undefined : builtins.get(name);
    if (build !== undefined) {
      const { desc, impl, mismatchHint } = build();
      TensorIntrin.register(name, desc, impl, { override: true, ...(mismatchHint === undefined ? {} : { mismatchHint }) });
    }
    const found = registry.get(name);
    if (found === undefined) {
      const known = TensorIntrin.names();
      throw new TensorIntrinError(`TensorIntrin "${name}" is not registered${known.length > 0 ? ` (registered: ${known.join(", ")})` : ""}`);
    }
    return found;
  }

  /** Whether an intrinsic is registered as `name`. */
  static has(name: string): boolean {
    return registry.has(name) || builtins.has(name);
  }

  /** The registered names (built-in ones included), sorted. */
  static names(): string[] {
    return [...new Set([...registry.keys(), ...builtins.keys()])].sort();
  }
}

function asFunc(name: string, role: string, f: PrimFunc | string): PrimFunc {
  if (typeof f === "string") return parsePrimFunc(f, { fileName: `<TensorIntrin ${name} ${role}>` });
  if ((f as { kind?: unknown } | null)?.kind !== "PrimFunc")
    throw new TensorIntrinError(`TensorIntrin "${name}": the ${role} must be a PrimFunc or TVMScript text`);
  return f;
}

function checkPair({ name, desc, impl }: TensorIntrin): void {
  const fail = (why: string) => new TensorIntrinError(`TensorIntrin "${name}": ${why}`);
  if (desc.params.length !== impl.params.length) {
    throw fail(`the description has ${desc.params.length} parameters and the implementation ${impl.params.length}; they must match`);
  }
  const descBuffers = bufferParams(desc, "description", fail);
  const implBuffers = bufferParams(impl, "implementation", fail);
  descBuffers.forEach((d, i) => {
    const m = implBuffers[i]!;
    if (d.dtype !== m.dtype || d.shape.length !== m.shape.length) {
      throw fail(
        `parameter ${i} is ${d.dtype} with ${d.shape.length} dimensions in the description but ${m.dtype} with ${m.shape.length} in the implementation`,
      );
    }
  });
  for (const [role, f, buffers] of [
    ["description", desc, descBuffers],
    ["implementation", impl, implBuffers],
  ] as const) {
    if (f.body.kind !== "BlockRealize") throw fail(`the body of the ${role} must be one block (with T.block("root"): ...)`);
    const touched = new Set([...f.body.block.reads, ...f.body.block.writes].map((r) => r.buffer));
    const missing = buffers.find((b) => !touched.has(b));
    if (missing !== undefined)
      throw fail(`the block of the ${role} neither reads nor writes parameter ${missing.name} (declare its region with T.reads / T.writes)`);
  }
}

function bufferParams(f: PrimFunc, role: string, fail: (why: string) => Error): Buffer[] {
  const scalar = f.params.find((p) => !f.bufferMap.has(p));
  if (scalar !== undefined) throw fail(`parameter ${scalar.name} of the ${role} is not a buffer; a tensor intrinsic takes buffers only`);
  return paramBuffers(f);
}
