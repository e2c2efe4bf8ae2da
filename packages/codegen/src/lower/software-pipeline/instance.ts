/**
 * One statement of the loop body at one pipelined iteration: the loop variable replaced by the
 * statement's original iteration, accesses of multi-versioned buffers given the version index
 * (the iteration modulo the version count) as their new leading index, indices and conditions
 * simplified under what is known of the new loop. Block regions of such buffers name the
 * instance's version, or, as TVM writes them where the maximum stage is not 1, all versions. A
 * `T.tvm_access_ptr` into such a buffer (a tensor intrinsic's operand) points into the instance's
 * version: its offset grows by the version times the version stride, as TVM rewrites it. A
 * register operand of a warp intrinsic (a buffer's data and an element offset, e.g. the A fragment
 * of the register-A wgmma) is rewritten the same way.
 */
import { registerOperands } from "../util/warp-operands.js";
import {
  type Analyzer,
  type BlockRealize,
  type Buffer,
  type BufferLoad,
  type BufferRegion,
  type BufferStore,
  type Call,
  IRMutator,
  type PrimExpr,
  type Stmt,
  type Var,
  add,
  floormod,
  intImm,
  mul,
} from "@tessera/ir";

export interface VersionedBuffer {
  readonly buffer: Buffer;
  readonly versions: number;
}

export class InstanceRewriter extends IRMutator {
  private readonly versionIndex = new Map<number, PrimExpr>();

  /**
   * @param iteration the original iteration of the statement, relative to the loop's min
   * @param loopValue the value of the original loop variable (`min + iteration`)
   */
  constructor(
    private readonly loopVar: Var,
    private readonly iteration: PrimExpr,
    private readonly loopValue: PrimExpr,
    private readonly versioned: ReadonlyMap<Var, VersionedBuffer>,
    private readonly analyzer: Analyzer,
    /** Regions of versioned buffers cover every version (TVM does so unless the maximum stage is 1). */
    private readonly regionsCoverAllVersions = false,
  ) {
    super();
  }

  override visitVar(v: Var): PrimExpr {
    return v === this.loopVar ? this.loopValue : v;
  }

  override visitExpr(e: PrimExpr): PrimExpr {
    const out = super.visitExpr(e);
    if (out.kind !== "Call") return out;
    if (out.op !== "tvm_access_ptr") return this.registerOperandsInVersion(out);
    const data = out.args[1];
    const v = data?.kind === "Var" ? this.versioned.get(data) : undefined;
    if (v === undefined) return out;
    const offset = this.analyzer.simplify(add(out.args[2]!, mul(this.version(v.versions), versionStride(v.buffer))));
    return { ...out, args: [out.args[0]!, v.buffer.data, offset, ...out.args.slice(3)] };
  }

  /** A warp intrinsic's register operands (data, element offset) in a versioned buffer: the instance's version. */
  private registerOperandsInVersion(c: Call): Call {
    let args: PrimExpr[] | undefined;
    for (const { buffer, offset } of registerOperands(c)) {
      const data = c.args[buffer];
      const v = data?.kind === "Var" ? this.versioned.get(data) : undefined;
      if (v === undefined) continue;
      args ??= [...c.args];
      args[buffer] = v.buffer.data;
      args[offset] = this.analyzer.simplify(add(c.args[offset]!, mul(this.version(v.versions), versionStride(v.buffer))));
    }
    return args === undefined ? c : { ...c, args };
  }

  override visitBufferLoad(e: BufferLoad): PrimExpr {
    const load = super.visitBufferLoad(e);
    if (load.kind !== "BufferLoad" || (load === e && !this.versioned.has(e.buffer.data))) return load;
    return { ...load, ...this.access(load.buffer, load.indices) };
  }

  override visitBufferStore(s: BufferStore): Stmt {
    const store = super.visitBufferStore(s);
    if (store.kind !== "BufferStore" || (store === s && !this.versioned.has(s.buffer.data))) return store;
    return { ...store, ...this.access(store.buffer, store.indices) };
  }

  /** Regions of nested blocks only document them from here on: substituted, not simplified. */
  override visitRegion(r: BufferRegion): BufferRegion {
    const region = super.visitRegion(r);
    const v = this.versioned.get(r.buffer.data);
    if (v === undefined) return region;
    const version = this.regionsCoverAllVersions ? { min: intImm(0), extent: intImm(v.versions) } : { min: this.version(v.versions), extent: intImm(1) };
    return { buffer: v.buffer, region: [version, ...region.region] };
  }

  override visitStmt(s: Stmt): Stmt {
    const out = super.visitStmt(s);
    if (out !== s && out.kind === "IfThenElse") return { ...out, condition: this.analyzer.simplify(out.condition) };
    return out;
  }

  override visitBlockRealize(s: BlockRealize): Stmt {
    const out = super.visitBlockRealize(s);
    if (out === s || out.kind !== "BlockRealize") return out;
    return { ...out, predicate: this.analyzer.simplify(out.predicate) };
  }

  private access(buffer: Buffer, indices: readonly PrimExpr[]): { buffer: Buffer; indices: PrimExpr[] } {
    const simplified = indices.map((i) => this.analyzer.simplify(i));
    const v = this.versioned.get(buffer.data);
    return v === undefined ? { buffer, indices: simplified } : { buffer: v.buffer, indices: [this.version(v.versions), ...simplified] };
  }

  private version(versions: number): PrimExpr {
    let index = this.versionIndex.get(versions);
    if (index === undefined) {
      index = this.analyzer.simplify(floormod(this.iteration, intImm(versions, this.iteration.dtype)));
      this.versionIndex.set(versions, index);
    }
    return index;
  }
}

/** Elements between two versions of a multi-versioned buffer (its leading stride). */
function versionStride(buffer: Buffer): PrimExpr {
  if (buffer.strides.length > 0) return buffer.strides[0]!;
  return buffer.shape.slice(1).reduce<PrimExpr>((acc, d) => mul(acc, d), intImm(1));
}
