/**
 * The register A fragments of the register-A wgmma (`wgmma_mma_async_rs`) as element ranges, so that
 * injectWgmmaSync can tell a statement that refills one version of them (a software pipeline over the
 * k steps keeps two: `double_buffer_scope`) from one that touches what the wgmmas still in flight
 * read. The tensor cores read A's registers until the group's `wgmma.wait_group`, so a load into them
 * needs that group retired only when it may touch what the group reads.
 */
import { type PrimExpr, type Stmt, type Var, forEachExpr, forEachStmt } from "@tessera/ir";
import { type Interval, type SharedAccess, provablyDisjoint } from "./shared-versions.js";
import { wgmmaMmaOperands } from "./warp-operands.js";

/** The register operands of the wgmmas in `s` other than their accumulators: A of the register-A form. */
export function fragmentOperands(s: Stmt): Set<Var> {
  const out = new Set<Var>();
  forEachExpr(s, (e) => {
    const operands = e.kind === "Call" ? wgmmaMmaOperands(e.op) : undefined;
    if (e.kind !== "Call" || operands === undefined) return;
    for (const i of operands.registers) {
      const a = e.args[i];
      if (i !== operands.accumulator && a?.kind === "Var") out.add(a);
    }
  });
  return out;
}

/** Elements of A a lane holds for one wgmma of `shape` (`m64nNkK`: 64 × K over the warpgroup's 128 lanes). */
function fragmentElements(shape: PrimExpr | undefined): number | undefined {
  const k = shape?.kind === "StringImm" ? /^m64n\d+k(\d+)$/.exec(shape.value)?.[1] : undefined;
  return k === undefined ? undefined : (64 * Number(k)) / 128;
}

/** The fragment elements the wgmmas in `stmts` read; undefined when one cannot be bounded. */
export function fragmentReads(stmts: readonly Stmt[]): SharedAccess[] | undefined {
  const reads: SharedAccess[] = [];
  let known = true;
  for (const s of stmts)
    forEachExpr(s, (e) => {
      const operands = e.kind === "Call" ? wgmmaMmaOperands(e.op) : undefined;
      if (e.kind !== "Call" || operands === undefined) return;
      const extent = fragmentElements(e.args[0]);
      for (const i of operands.registers) {
        if (i === operands.accumulator) continue;
        const [data, offset] = [e.args[i], e.args[i + 1]];
        if (data?.kind !== "Var" || offset === undefined || extent === undefined) known = false;
        else reads.push({ data, offset, extent });
      }
    });
  return known ? reads : undefined;
}

/**
 * The elements of the buffers `fragments` that `s` reads or writes (loads and stores of one index or
 * a ramp); undefined when it names one of them any other way (e.g. as an intrinsic's operand).
 */
export function fragmentAccesses(s: Stmt, fragments: ReadonlySet<Var>): SharedAccess[] | undefined {
  const accesses: SharedAccess[] = [];
  let unknown = false;
  const note = (data: Var, indices: readonly PrimExpr[]) => {
    if (!fragments.has(data)) return;
    const index = indices.length === 1 ? indices[0]! : undefined;
    if (index?.kind === "Ramp" && index.stride.kind === "IntImm" && index.stride.value >= 0)
      accesses.push({ data, offset: index.base, extent: (index.lanes - 1) * index.stride.value + 1 });
    else if (index !== undefined && index.kind !== "Ramp") accesses.push({ data, offset: index, extent: 1 });
    else unknown = true;
  };
  forEachStmt(s, (x) => {
    if (x.kind === "BufferStore") note(x.buffer.data, x.indices);
  });
  forEachExpr(s, (e) => {
    // A fragment's data as a value: an intrinsic's operand, whose elements are not known here.
    if (e.kind === "Var" && fragments.has(e)) unknown = true;
    if (e.kind === "BufferLoad") note(e.buffer.data, e.indices);
  });
  return unknown ? undefined : accesses;
}

/** Whether no access in `accesses` can touch an element of `reads` (in one iteration of the loop over `k`). */
export function missesReads(
  accesses: readonly SharedAccess[],
  reads: readonly SharedAccess[],
  k: Var | undefined,
  ranges: ReadonlyMap<Var, Interval>,
): boolean {
  return accesses.every((a) => reads.every((r) => a.data !== r.data || provablyDisjoint(a, r, 0, k, ranges, 1)));
}
