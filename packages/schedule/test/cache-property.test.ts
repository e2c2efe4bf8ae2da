import { type PrimFunc, compilePrimFunc, parsePrimFunc, randomArgs } from "@tessera/ir";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Schedule, type StorageScopeName } from "../src/index.js";

const WORKLOADS: PrimFunc[] = [
  parsePrimFunc(`
@T.prim_func
def main(A: T.Buffer((4, 6), "int32"), B: T.Buffer((6, 5), "int32"), C: T.Buffer((4, 5), "int32")):
    for i, j, k in T.grid(4, 5, 6):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = 0
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
`),
  parsePrimFunc(`
@T.prim_func
def main(A: T.Buffer((16,), "int32"), D: T.Buffer((16,), "int32"), E: T.Buffer((16,), "int32")):
    B = T.alloc_buffer((16,), "int32")
    C = T.alloc_buffer((16,), "int32")
    for i in range(4):
        for j in range(4):
            with T.block("B"):
                vi = T.axis.spatial(16, i * 4 + j)
                B[vi] = A[vi] * 3 + 1
        for j in range(4):
            with T.block("C"):
                vi = T.axis.spatial(16, i * 4 + j)
                C[vi] = B[vi] - A[vi]
    for i in range(16):
        with T.block("D"):
            vi = T.axis.spatial(16, i)
            D[vi] = C[vi] * B[vi]
    for i in range(16):
        with T.block("E"):
            vi = T.axis.spatial(16, i)
            E[vi] = D[vi] + C[15 - vi]
`),
];

const SCOPES: StorageScopeName[] = ["global", "shared", "shared.dyn", "local", "warp"];

function outputs(func: PrimFunc): Int32Array[] {
  const args = randomArgs(func, 7) as Int32Array[];
  compilePrimFunc(func).run(args);
  return args;
}

const step = fc.record({
  write: fc.boolean(),
  block: fc.nat(10),
  index: fc.nat(3),
  scope: fc.constantFrom(...SCOPES),
  consumers: fc.boolean(),
});

describe("cache_read / cache_write preserve the program's meaning", () => {
  it("on random blocks, buffer indices, scopes and consumer lists", () => {
    fc.assert(
      fc.property(fc.nat(WORKLOADS.length - 1), fc.array(step, { minLength: 1, maxLength: 3 }), (w, steps) => {
        const func = WORKLOADS[w]!;
        const sch = new Schedule(func);
        for (const s of steps) {
          const blocks = sch.getChildBlocks(sch.getBlock("root")).filter((b) => sch.get(b).iterVars.length > 0);
          const blk = blocks[s.block % blocks.length]!;
          const node = sch.get(blk);
          const regions = s.write ? node.writes : node.reads;
          if (regions.length === 0) continue;
          const idx = s.index % regions.length;
          if (s.write) {
            const consumers = s.consumers ? sch.getConsumers(blk).slice(0, 1) : [];
            sch.cacheWrite(blk, idx, s.scope, consumers);
          } else {
            const readers = blocks.filter((b) => sch.get(b).reads.some((r) => r.buffer === regions[idx]!.buffer));
            sch.cacheRead(blk, idx, s.scope, s.consumers ? [blk, ...readers.slice(0, 1)] : []);
          }
        }
        expect(outputs(sch.func)).toEqual(outputs(func));
      }),
      { numRuns: 60 },
    );
  });
});
