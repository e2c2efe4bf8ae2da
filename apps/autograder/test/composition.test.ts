/** Which part-1 tasks the numerics judged: the student's, and the solution's stand-ins with why. */
import { describe, expect, it } from "vitest";
import { assignmentBinding } from "../src/assignment.js";
import { chainComposition, describeComposition, whyNotChecked } from "../src/grade/composition.js";
import { type TaskGrade, failed, passed } from "../src/grade/task-grade.js";
import { loadManifest } from "../src/manifest/index.js";

const manifest = loadManifest(assignmentBinding("gemm-relu-add").manifestPath);
const chain = manifest.tasks.filter((t) => t.start === "previous-task");
const ids = chain.map((t) => t.id);

/** Grades of the chain: "ok" (all checks pass), "failed" (one check fails: not a stand-in), "threw" or "unreplayable" (no schedule). */
function grades(outcomes: readonly ("ok" | "failed" | "threw" | "unreplayable")[]): TaskGrade[] {
  return chain.map((task, k) => {
    const outcome = outcomes[k]!;
    if (outcome === "threw")
      return { task, error: `${task.function} threw`, incomplete: "did not complete", checks: task.checks.map((c) => failed(c, "not graded")), notes: [] };
    if (outcome === "unreplayable")
      return { task, error: "replaying failed", incomplete: "could not be replayed", checks: task.checks.map((c) => failed(c, "not graded")), notes: [] };
    return { task, checks: task.checks.map((c, i) => (outcome === "failed" && i === 0 ? failed(c, "wrong") : passed(c))), notes: [] };
  });
}

describe("chain composition in the numerics feedback", () => {
  it("task 1 completed and later tasks left no schedule: names the student's tasks (a failed check is still theirs) and the stand-ins with why", () => {
    const c = chainComposition(chain, grades(["ok", "threw", "failed", "unreplayable", "ok"]), [ids[1]!, ids[3]!]);
    expect(c.yours.map((t) => t.function)).toEqual(["sharedMemoryTiling", "cooperativeFetching", "epilogueFusion"]);
    expect(describeComposition(c)).toBe(
      "your sharedMemoryTiling, cooperativeFetching, epilogueFusion, with the solution's registerTiling (yours did not complete), writeCache (yours could not be replayed)",
    );
  });

  it("groups consecutive stand-ins of one reason, and names a passed task rebuilt because the solution's next task did not fit", () => {
    const c = chainComposition(chain, grades(["ok", "threw", "threw", "threw", "ok"]), ids.slice(0, 4));
    expect(describeComposition(c)).toBe(
      "your epilogueFusion, with the solution's sharedMemoryTiling (yours did not fit the solution's next task), registerTiling, cooperativeFetching, writeCache (yours did not complete)",
    );
  });

  it("every task the student's: says there were no stand-ins", () => {
    expect(describeComposition(chainComposition(chain, grades(["ok", "ok", "ok", "ok", "ok"]), []))).toBe(
      "your sharedMemoryTiling, registerTiling, cooperativeFetching, writeCache, epilogueFusion (no stand-ins)",
    );
  });

  it("not checked: 'none completed' only when none did; else why each task is the solution's", () => {
    expect(whyNotChecked(chainComposition(chain, grades(["threw", "threw", "threw", "threw", "threw"]), ids))).toBe("none of your part-1 tasks completed");
    expect(whyNotChecked(chainComposition(chain, grades(["unreplayable", "threw", "threw", "threw", "threw"]), ids))).toBe(
      "the schedule would be the solution's alone: it stands in for every part-1 task (sharedMemoryTiling (yours could not be replayed), registerTiling, cooperativeFetching, writeCache, epilogueFusion (yours did not complete))",
    );
  });
});
