/**
 * Valid spellings of the solution: the same schedule written another way (explicit or literal
 * split factors, fuse + two splits, several reorders, the block loops in the other order, helper
 * functions and a class, inlining in the other order, the write-back loop found another way).
 * spellings.test.ts asserts that each scores full marks: the checks judge the schedule, not how
 * the code is written.
 */
import { type Edit, append, insertBefore, lines, replace } from "./submission-cases.js";

export interface Spelling {
  readonly name: string;
  /** Edits of the solution's gemm_relu_add.ts. */
  readonly edits: readonly Edit[];
}

const REORDER_1 = "sch.reorder(blockX, blockY, kOuter, innerX, innerY, kInner);";
const REORDER_2 = "sch.reorder(threadX, threadY, kChunk, kStep, regX, regY);";

export const SPELLINGS: readonly Spelling[] = [
  {
    name: "explicit-split-factors",
    edits: [
      replace("sch.split(i, [null, tileX])", "sch.split(i, [WORKLOAD_SIZE / tileX, tileX])"),
      replace("sch.split(j, [null, tileY])", "sch.split(j, [2048 / tileY, tileY])"),
      replace("sch.split(k, [null, tileK])", "sch.split(k, [2048 / tileK, null])"),
      replace("sch.split(innerX, [null, threadTileX])", "sch.split(innerX, [64 / threadTileX, threadTileX])"),
      replace("sch.split(kInner, [null, threadTileK])", "sch.split(kInner, [null, 1])"),
    ],
  },
  {
    name: "several-reorders",
    // [i0, i1, j0, j1, k0, k1] → [i0, j0, i1, j1, k0, k1] → [i0, j0, k0, i1, j1, k1]
    edits: [
      replace(REORDER_1, "sch.reorder(blockY, innerX);\n  sch.reorder(kOuter, innerX, innerY);"),
      replace(REORDER_2, "sch.reorder(threadX, threadY, regX);\n  sch.reorder(kChunk, kStep, regX, regY);"),
    ],
  },
  {
    name: "block-loops-in-the-other-order",
    edits: [replace(REORDER_1, "sch.reorder(blockY, blockX, kOuter, innerX, innerY, kInner);")],
  },
  {
    name: "fuse-then-two-splits",
    edits: [
      replace(
        "const [, threadX, threadY] = sch.split(fused, [null, threadExtentX, threadExtentY]) as [LoopRV, LoopRV, LoopRV];",
        lines(
          "const [, threads] = sch.split(fused, [null, threadExtentX * threadExtentY]) as [LoopRV, LoopRV];",
          "    const [threadX, threadY] = sch.split(threads, [threadExtentX, null]) as [LoopRV, LoopRV];",
        ).trimEnd(),
      ),
    ],
  },
  {
    name: "helpers-and-a-class",
    edits: [
      insertBefore(
        "/** Task 1:",
        lines(
          "/** Splits `loop` into an outer loop and an inner one of `inner` iterations. */",
          "function tileLoop(sch: Schedule, loop: LoopRV, inner: number): [LoopRV, LoopRV] {",
          "  return sch.split(loop, [null, inner]) as [LoopRV, LoopRV];",
          "}",
          "",
          "/** Binds loop pairs to a pair of GPU indices. */",
          "class Binder {",
          "  constructor(private readonly sch: Schedule) {}",
          '  pair(x: LoopRV, y: LoopRV, level: "blockIdx" | "threadIdx"): void {',
          "    this.sch.bind(x, `${level}.x`);",
          "    this.sch.bind(y, `${level}.y`);",
          "  }",
          "}",
          "",
        ),
      ),
      replace("const [blockX, innerX] = sch.split(i, [null, tileX]) as [LoopRV, LoopRV];", "const [blockX, innerX] = tileLoop(sch, i, tileX);"),
      replace(lines('  sch.bind(blockX, "blockIdx.x");', '  sch.bind(blockY, "blockIdx.y");'), lines('  new Binder(sch).pair(blockX, blockY, "blockIdx");')),
      replace(
        `${REORDER_2}\n${lines('  sch.bind(threadX, "threadIdx.x");', '  sch.bind(threadY, "threadIdx.y");')}`,
        `${REORDER_2}\n${lines('  new Binder(sch).pair(threadX, threadY, "threadIdx");')}`,
      ),
    ],
  },
  {
    name: "inline-add-first",
    edits: [
      replace(
        lines('  sch.reverseComputeInline(sch.getBlock("relu"));', '  sch.reverseComputeInline(sch.getBlock("add"));'),
        lines('  sch.reverseComputeInline(sch.getBlock("add"));', '  sch.reverseComputeInline(sch.getBlock("relu"));'),
      ),
    ],
  },
  {
    name: "write-back-at-the-innermost-thread-loop-by-position",
    edits: [
      replace(
        'const threadY = sch.getLoops(gemm).find((loop) => sch.get(loop).threadTag === "threadIdx.y");',
        "const threadY = sch.getLoops(gemm).filter((loop) => sch.get(loop).threadTag !== undefined).at(-1);",
      ),
    ],
  },
  {
    name: "copies-returned-by-a-helper",
    edits: [
      replace("  return [aShared, bShared];", "  return inOrder(aShared, bShared);"),
      append(
        lines(
          "",
          "/** The stages in the order task 3 takes them. */",
          "function inOrder(a: BlockRV, b: BlockRV): [BlockRV, BlockRV] {",
          "  return [a, b];",
          "}",
        ),
      ),
    ],
  },
];
