/**
 * The tf32 operand stages of a GEMM (precision/fp32-precision.ts writes them on request): blocks
 * `X[v…] = tf32_round(Y[v…])` (the "round" part: tf32, or 3xTF32's hi) and
 * `X[v…] = tf32_round(Y[v…] − tf32_round(Y[v…]))` (3xTF32's "residual" lo), elementwise over
 * Y's whole shape. A tf32 intrinsic group takes such a stage as its fragment load (the load
 * intrinsics round as they load); a float32 GEMM without them is never given a tf32 group.
 */
import type { Block, Buffer, PrimExpr } from "@tessera/ir";
import type { BlockRV, Schedule } from "@tessera/schedule";

export type StagePart = "round" | "residual";

export interface OperandStage {
  readonly block: BlockRV;
  /** The float32 buffer the stage rounds. */
  readonly source: Buffer;
  readonly part: StagePart;
}

/** The stage that writes `buffer` for `consumer` (its only consumer), or undefined. */
export function operandStage(sch: Schedule, consumer: BlockRV, buffer: Buffer): OperandStage | undefined {
  for (const producer of sch.getProducers(consumer)) {
    const node = sch.get(producer);
    if (node.writes.length !== 1 || node.writes[0]!.buffer !== buffer) continue;
    const stage = stageOf(node);
    if (stage === undefined || sch.getConsumers(producer).length !== 1) return undefined;
    return { block: producer, ...stage };
  }
  return undefined;
}

/** The source and part of a stage block (the module comment's two forms), or undefined. */
export function stageOf(block: Block): { source: Buffer; part: StagePart } | undefined {
  const body = block.body;
  if (block.init !== undefined || body.kind !== "BufferStore" || body.buffer.dtype !== "float32") return undefined;
  if (block.iterVars.some((iv) => iv.iterType !== "spatial")) return undefined;
  const vars = block.iterVars.map((iv) => iv.var);
  if (!sameIndices(body.indices, vars)) return undefined;
  const rounded = tf32RoundArg(body.value);
  if (rounded === undefined) return undefined;
  if (rounded.kind === "BufferLoad")
    return rounded.buffer.dtype === "float32" && sameIndices(rounded.indices, vars) && sameShape(rounded.buffer, body.buffer)
      ? { source: rounded.buffer, part: "round" }
      : undefined;
  // tf32(Y − tf32(Y))
  if (rounded.kind !== "Binary" || rounded.op !== "sub" || rounded.a.kind !== "BufferLoad") return undefined;
  const y = rounded.a;
  const inner = tf32RoundArg(rounded.b);
  if (inner?.kind !== "BufferLoad" || inner.buffer !== y.buffer || !sameIndices(inner.indices, vars) || !sameIndices(y.indices, vars)) return undefined;
  return y.buffer.dtype === "float32" && sameShape(y.buffer, body.buffer) ? { source: y.buffer, part: "residual" } : undefined;
}

function tf32RoundArg(e: PrimExpr): PrimExpr | undefined {
  return e.kind === "Call" && e.op === "tf32_round" && e.args.length === 1 ? e.args[0] : undefined;
}

function sameIndices(indices: readonly PrimExpr[], vars: readonly PrimExpr[]): boolean {
  return indices.length === vars.length && indices.every((x, k) => x === vars[k]);
}

function sameShape(a: Buffer, b: Buffer): boolean {
  return (
    a.shape.length === b.shape.length &&
    a.shape.every((s, k) => s.kind === "IntImm" && b.shape[k]!.kind === "IntImm" && s.value === (b.shape[k] as typeof s).value)
  );
}
