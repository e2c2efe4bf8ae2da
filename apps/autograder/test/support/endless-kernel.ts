/**
 * A kernel that runs for hours, for the GPU watchdog check: gemm_relu_add's parameters (A, B, C, D
 * as float32 n×n, so the GPU worker runs it like any graded schedule), but each thread sums 2³⁰
 * products before it writes its element of D. Scheduled one element per thread, 256 per block.
 */
import { add, buildPrimFunc, floatImm, floormod, mul, type PrimFunc } from "@tessera/ir";
import { type LoopRV, Schedule } from "@tessera/schedule";

export const ENDLESS_REDUCTION = 2 ** 30;

function endlessFunc(n: number): PrimFunc {
  return buildPrimFunc("gemm_relu_add", ({ param, grid, block, axis, init, store, load }) => {
    const A = param("A", [n, n], "float32");
    const B = param("B", [n, n], "float32");
    param("C", [n, n], "float32");
    const D = param("D", [n, n], "float32");
    grid([n, n, ENDLESS_REDUCTION], (i, j, r) => {
      block("spin", () => {
        const vi = axis.spatial(n, i);
        const vj = axis.spatial(n, j);
        const vr = axis.reduce(ENDLESS_REDUCTION, r);
        init(() => store(D, [vi, vj], floatImm(0, "float32")));
        store(D, [vi, vj], add(load(D, [vi, vj]), mul(load(A, [vi, floormod(vr, n)]), load(B, [floormod(vr, n), vj]))));
      });
    });
  });
}

export function endlessSchedule(n: number): Schedule {
  const sch = new Schedule(endlessFunc(n));
  const [i, j] = sch.getLoops(sch.getBlock("spin")) as [LoopRV, LoopRV, LoopRV];
  const [blocks, threads] = sch.split(sch.fuse(i, j), [null, 256]) as [LoopRV, LoopRV];
  sch.bind(blocks, "blockIdx.x");
  sch.bind(threads, "threadIdx.x");
  return sch;
}
