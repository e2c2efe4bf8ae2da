/**
 * The manifest's structural checks on real schedules: the instructor solution passes every check
 * of every task right after that task; schedules missing a step fail with feedback naming it.
 */
import { gemmReluAdd } from "@tessera/ir";
import { type BlockRV, Schedule } from "@tessera/schedule";
import { beforeAll, describe, expect, it } from "vitest";
import { manifestPath } from "../../../assignments/gemm-relu-add/src/index.js";
import * as solution from "../../../assignments/gemm-relu-add/solution/gemm_relu_add.js";
import { type ProgramView, isStructural, programView, runStructuralCheck } from "../src/checks/index.js";
import { type Manifest, type Task, loadManifest } from "../src/manifest/index.js";

let manifest: Manifest;
let tiles: Record<string, number>;

beforeAll(async () => {
  manifest = await loadManifest(manifestPath());
  tiles = manifest.manual.tileSizes;
});

function task(id: string): Task {
  const t = manifest.tasks.find((x) => x.id === id);
  if (t === undefined) throw new Error(`no task ${id}`);
  return t;
}

/** Each check's outcome; `returned`: the blocks the task's function returned, as the sandbox reports them (by name). */
function outcomes(sch: Schedule, taskId: string, returned: readonly unknown[] = [], before?: ProgramView): Record<string, string> {
  const view = programView(sch.func);
  const returnedBlocks = returned.map((b) => sch.get(b as BlockRV).name);
  const out: Record<string, string> = {};
  for (const check of task(taskId).checks) {
    if (!isStructural(check)) continue;
    const r = runStructuralCheck(check, { view, before, tiles, returnedBlocks });
    out[check.id] = r.passed ? "pass" : r.feedback;
  }
  return out;
}

function allPass(sch: Schedule, taskId: string, returned: readonly unknown[] = [], before?: ProgramView): void {
  const results = outcomes(sch, taskId, returned, before);
  for (const [id, r] of Object.entries(results)) expect(r, `${taskId}/${id}`).toBe("pass");
  expect(Object.keys(results).length).toBeGreaterThan(0);
}

describe("structural checks of the gemm-relu-add manifest", () => {
  it("the solution passes every task's checks right after the task", () => {
    const t = tiles as Record<"tileX" | "tileY" | "tileK" | "threadTileX" | "threadTileY" | "threadTileK", number>;
    const sch = new Schedule(gemmReluAdd(2048).func);
    const [a, b] = solution.sharedMemoryTiling(sch, t.tileX, t.tileY, t.tileK);
    allPass(sch, "shared-memory-tiling", [a, b]);
    const afterTask1 = programView(sch.func);
    solution.registerTiling(sch, t.threadTileX, t.threadTileY, t.threadTileK);
    allPass(sch, "register-tiling", [], afterTask1);
    solution.cooperativeFetching(sch, a as BlockRV, b as BlockRV, t.tileX / t.threadTileX, t.tileY / t.threadTileY);
    allPass(sch, "cooperative-fetching");
    solution.writeCache(sch);
    allPass(sch, "write-cache");
    solution.epilogueFusion(sch);
    allPass(sch, "epilogue-fusion");
  });

  it("the unscheduled workload fails task 1 with feedback naming the missing split, binding and stage", () => {
    const results = outcomes(new Schedule(gemmReluAdd(2048).func), "shared-memory-tiling");
    expect(results["split-i-by-tile-x"]).toMatch(/the i loop of "gemm" is not split/);
    expect(results["block-loops-bound"]).toBe(
      "the block loop over i (i, extent 2048) is not bound: bind it to blockIdx.x; the block loop over j (j, extent 2048) is not bound: bind it to blockIdx.y",
    );
    expect(results["a-shared-stage"]).toBe('"gemm" does not read A through a shared copy (cacheRead)');
  });

  it("a wrong tile split fails only the split check: the other checks find the loops by role", () => {
    const sch = new Schedule(gemmReluAdd(2048).func);
    const returned = solution.sharedMemoryTiling(sch, 32, tiles.tileY!, tiles.tileK!);
    const results = outcomes(sch, "shared-memory-tiling", returned);
    expect(results["split-i-by-tile-x"]).toBe(
      'the i loop of "gemm" is split into tiles of 32, not 64 (its loops: i_0 (extent 64, bound to blockIdx.x), i_1 (extent 32))',
    );
    // Regression: the block loop's extent (2048/32) equals tileX, and the loop order and A's copy were judged by extents.
    expect(
      Object.entries(results)
        .filter(([, r]) => r !== "pass")
        .map(([id]) => id),
    ).toEqual(["split-i-by-tile-x"]);
  });

  it("a shared stage left at the root (no computeAt) fails the placement check", () => {
    const sch = new Schedule(gemmReluAdd(2048).func);
    const gemm = sch.getBlock("gemm");
    const [i, j, k] = sch.getLoops(gemm);
    const [bx, ii] = sch.split(i, [null, 64]);
    const [by, jj] = sch.split(j, [null, 64]);
    const [ko, ki] = sch.split(k, [null, 64]);
    sch.reorder(bx, by, ko, ii, jj, ki);
    sch.bind(bx, "blockIdx.x");
    sch.bind(by, "blockIdx.y");
    sch.cacheRead(gemm, 0, "shared");
    const results = outcomes(sch, "shared-memory-tiling");
    expect(results["a-shared-stage"]).toBe(
      'the shared stage "A_shared" is computed at the root, outside every loop of "gemm": move it under the k-chunk loop (k_0, extent 32) with computeAt',
    );
  });

  it("shared stages that are not fetched cooperatively fail task 3 with what is missing", () => {
    const t = tiles as Record<string, number>;
    const sch = new Schedule(gemmReluAdd(2048).func);
    solution.sharedMemoryTiling(sch, t.tileX!, t.tileY!, t.tileK!);
    solution.registerTiling(sch, t.threadTileX!, t.threadTileY!, t.threadTileK!);
    const results = outcomes(sch, "cooperative-fetching");
    expect(results["a-cooperative-fetch"]).toBe('no loop of the copy "A_shared" is bound to threadIdx.x');
  });

  it("a plain 2-D split of the copy bound to the threads also fetches each element once", () => {
    const t = tiles as Record<string, number>;
    const sch = new Schedule(gemmReluAdd(2048).func);
    const [a] = solution.sharedMemoryTiling(sch, t.tileX!, t.tileY!, t.tileK!);
    solution.registerTiling(sch, t.threadTileX!, t.threadTileY!, t.threadTileK!);
    const loops = sch.getLoops(a as BlockRV);
    const [ax0, ax1] = loops.slice(-2);
    const [, tx] = sch.split(ax0, [null, 16]);
    const [, ty] = sch.split(ax1, [null, 16]);
    sch.bind(tx, "threadIdx.x");
    sch.bind(ty, "threadIdx.y");
    expect(outcomes(sch, "cooperative-fetching")["a-cooperative-fetch"]).toBe("pass");
  });
});
