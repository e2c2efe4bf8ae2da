import { describe, expect, it } from "vitest";
import { assignmentBinding } from "../src/assignment.js";
import { workloadSizeLabel } from "../src/workload-size.js";

describe("workloadSizeLabel", () => {
  it("names each assignment's size by its workload's largest block domain", () => {
    expect(workloadSizeLabel(assignmentBinding("gemm-relu-add"), 2048)).toBe("2048×2048×2048");
    expect(workloadSizeLabel(assignmentBinding("gemm-relu-add"), 64)).toBe("64×64×64");
    expect(workloadSizeLabel(assignmentBinding("d2l-transpose"), 512)).toBe("512×512");
  });
});
