/**
 * What each statement of a pipelined loop reads and writes (TVM blockizes each statement and
 * infers its regions): per buffer, a box of constant index bounds with every loop relaxed — the
 * statement's own loops and the loops around the pipeline, including the pipelined loop and the
 * thread loops. Two statement instances compared for a dependence may be of different iterations
 * and threads, so outer variables may differ between them; buffers allocated inside the
 * statement are private to it and not listed. A `T.tvm_access_ptr` into one of the `known`
 * buffers (a tensor intrinsic's operand) reads and/or writes, by its mask, the whole buffer (as
 * TVM's region detector takes it).
 */
import {
  type Buffer,
  type BufferLoad,
  type BufferStore,
  type Call,
  type For,
  type IntBound,
  IRVisitor,
  type PrimExpr,
  type Stmt,
  type Var,
  type VarBoundFacts,
  add,
  constIntBoundOf,
  sub,
} from "@tessera/ir";

/** The elements of `buffer` a statement may touch: one inclusive bound per dimension. */
export interface AccessBox {
  readonly buffer: Buffer;
  readonly bounds: readonly IntBound[];
}

export interface StmtAccesses {
  readonly reads: readonly AccessBox[];
  readonly writes: readonly AccessBox[];
}

/** Bounds of the loop variables around the pipelined statements (the pipelined loop included). */
export class LoopBounds implements VarBoundFacts {
  private readonly bounds = new Map<Var, IntBound>();

  constructor(loops: readonly For[]) {
    for (const loop of loops) this.bind(loop);
  }

  boundOf(v: Var): IntBound | undefined {
    return this.bounds.get(v);
  }

  bind(loop: For): void {
    this.bounds.set(loop.loopVar, {
      min: constIntBoundOf(loop.min, this).min,
      max: constIntBoundOf(sub(add(loop.min, loop.extent), 1), this).max,
    });
  }

  unbind(v: Var): void {
    this.bounds.delete(v);
  }
}

export function stmtAccesses(stmt: Stmt, outer: readonly For[], known: readonly Buffer[] = []): StmtAccesses {
  const collector = new AccessCollector(new LoopBounds(outer), new Map(known.map((b) => [b.data, b])));
  collector.visitStmt(stmt);
  return { reads: collector.boxes(collector.reads), writes: collector.boxes(collector.writes) };
}

export function boxesOf(boxes: readonly AccessBox[], data: Var): AccessBox[] {
  return boxes.filter((b) => b.buffer.data === data);
}

export function boxesOverlap(as: readonly AccessBox[], bs: readonly AccessBox[]): boolean {
  return as.some((a) =>
    bs.some((b) => a.bounds.length === b.bounds.length && a.bounds.every((x, d) => x.min <= b.bounds[d]!.max && b.bounds[d]!.min <= x.max)),
  );
}

class AccessCollector extends IRVisitor {
  readonly reads = new Map<Var, { buffer: Buffer; bounds: IntBound[] }>();
  readonly writes = new Map<Var, { buffer: Buffer; bounds: IntBound[] }>();
  private readonly privateStorage = new Set<Var>();

  constructor(
    private readonly facts: LoopBounds,
    private readonly known: ReadonlyMap<Var, Buffer>,
  ) {
    super();
  }

  boxes(table: ReadonlyMap<Var, AccessBox>): AccessBox[] {
    return [...table.values()].filter((b) => !this.privateStorage.has(b.buffer.data));
  }

  override visitStmt(s: Stmt): void {
    if (s.kind === "Allocate" || s.kind === "DeclBuffer") this.privateStorage.add(s.buffer.data);
    if (s.kind === "BlockRealize") for (const b of s.block.allocBuffers) this.privateStorage.add(b.data);
    super.visitStmt(s);
  }

  override visitFor(s: For): void {
    this.visitExpr(s.min);
    this.visitExpr(s.extent);
    this.facts.bind(s);
    this.visitStmt(s.body);
    this.facts.unbind(s.loopVar);
  }

  override visitBufferStore(s: BufferStore): void {
    super.visitBufferStore(s);
    this.record(this.writes, s.buffer, s.indices);
  }

  override visitBufferLoad(e: BufferLoad): void {
    super.visitBufferLoad(e);
    this.record(this.reads, e.buffer, e.indices);
  }

  override visitExpr(e: PrimExpr): void {
    super.visitExpr(e);
    if (e.kind === "Call") this.recordPointer(e);
  }

  private recordPointer(e: Call): void {
    const data = e.op === "tvm_access_ptr" ? e.args[1] : undefined;
    const buffer = data?.kind === "Var" ? this.known.get(data) : undefined;
    const mask = e.args[4];
    if (buffer === undefined || mask?.kind !== "IntImm") return;
    const whole = buffer.shape.map((extent) => ({ min: 0, max: constIntBoundOf(extent, this.facts).max - 1 }));
    if ((mask.value & 1) !== 0) this.merge(this.reads, buffer, whole);
    if ((mask.value & 2) !== 0) this.merge(this.writes, buffer, whole);
  }

  private record(table: Map<Var, { buffer: Buffer; bounds: IntBound[] }>, buffer: Buffer, indices: readonly PrimExpr[]): void {
    this.merge(
      table,
      buffer,
      indices.map((i) => constIntBoundOf(i, this.facts)),
    );
  }

  private merge(table: Map<Var, { buffer: Buffer; bounds: IntBound[] }>, buffer: Buffer, bounds: IntBound[]): void {
    const previous = table.get(buffer.data);
    if (previous === undefined || previous.bounds.length !== bounds.length) {
      table.set(buffer.data, { buffer, bounds });
      return;
    }
    previous.bounds.forEach((b, d) => (previous.bounds[d] = { min: Math.min(b.min, bounds[d]!.min), max: Math.max(b.max, bounds[d]!.max) }));
  }
}
