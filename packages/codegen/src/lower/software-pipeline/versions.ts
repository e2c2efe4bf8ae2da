/**
 * How many versions a buffer allocated for the pipelined loop body keeps (TVM's rule), and the
 * multi-versioned buffer: a leading dimension of that extent, selected by the iteration modulo
 * the version count.
 *
 * A buffer written from stage `def` on and read up to stage `use` is live across `use - def + 1`
 * iterations in flight, so it gets that many versions. Two versions are unnecessary when no
 * reader runs after a writer of an earlier stage in the same pipelined iteration (with
 * overlapping regions): the reader then always consumes the value before the writer of the next
 * iteration replaces it. A buffer named by a `double_buffer_scope` block keeps at least two.
 *
 * A buffer read asynchronously (Hopper's `wgmma.mma_async` reads its shared operands after it is
 * issued, until a later `wgmma.wait_group`) keeps one version more (not TVM's rule: TVM has no
 * asynchronous readers): the reads of iteration i may then stay in flight while iteration i + 1
 * runs, and the writes of iteration i + 1 go to another version (injectWgmmaSync proves it and
 * waits only as deep as it must). Its reads outlive the iteration, so TVM's single version for a
 * reader ordered before the writer does not apply to it: a wgmma issued before the copies of its
 * own iteration is still reading when they land.
 */
import { type Buffer, type PrimExpr, type Var, forEachExpr, intImm, mul, simplify, usesVar, variable, withBuffer } from "@tessera/ir";
import { wgmmaMmaOperands } from "../util/warp-operands.js";
import { boxesOf, boxesOverlap } from "./accesses.js";
import { type PipelineStmt, readsData, writesData } from "./model.js";

export function versionCount(buffer: Buffer, stmts: readonly PipelineStmt[], doubleBuffered: ReadonlySet<Var> = new Set()): number {
  const asynchronous = stmts.some((s) => writesData(s, buffer.data)) && stmts.some((s) => readsAsynchronously(s, buffer.data));
  const synchronous = synchronousVersionCount(buffer, stmts, doubleBuffered, !asynchronous);
  return asynchronous ? synchronous + 1 : synchronous;
}

/**
 * Whether `st` issues a wgmma whose shared operands name `data` (it reads them after it is issued).
 * Its register operands (A of the register-A form) are not versioned: injectWgmmaSync waits for the
 * group before anything else touches them.
 */
function readsAsynchronously(st: PipelineStmt, data: Var): boolean {
  let found = false;
  forEachExpr(st.stmt, (e) => {
    const operands = e.kind === "Call" ? wgmmaMmaOperands(e.op) : undefined;
    if (e.kind === "Call" && operands?.shared.some((i) => usesVar(e.args[i]!, (v) => v === data))) found = true;
  });
  return found;
}

function synchronousVersionCount(buffer: Buffer, stmts: readonly PipelineStmt[], doubleBuffered: ReadonlySet<Var>, readsEndInIteration: boolean): number {
  const writers = stmts.filter((s) => writesData(s, buffer.data));
  const readers = stmts.filter((s) => readsData(s, buffer.data));
  if (writers.length === 0) return 1;
  const def = Math.min(...writers.map((s) => s.stage));
  const use = Math.max(-1, ...readers.map((s) => s.stage));
  const versions = use - def + 1;
  if (versions === 2 && readsEndInIteration) {
    const readerAfterEarlierWriter = writers.some((w) =>
      readers.some(
        (r) => w.order < r.order && w.stage < r.stage && boxesOverlap(boxesOf(w.accesses.writes, buffer.data), boxesOf(r.accesses.reads, buffer.data)),
      ),
    );
    if (!readerAfterEarlierWriter) return doubleBuffered.has(buffer.data) ? 2 : 1;
  }
  return Math.max(doubleBuffered.has(buffer.data) ? 2 : 1, versions);
}

/** `buffer` with a leading dimension of `versions` (strides, when explicit, extended). */
export function multiVersioned(buffer: Buffer, versions: number): Buffer {
  const shape: PrimExpr[] = [intImm(versions), ...buffer.shape];
  const strides: PrimExpr[] = buffer.strides.length === 0 ? [] : [simplify(mul(buffer.strides[0]!, buffer.shape[0]!)), ...buffer.strides];
  const data: Var = variable(buffer.name, "handle");
  return withBuffer(buffer, { shape, strides, data });
}
