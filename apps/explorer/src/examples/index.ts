/**
 * The ready examples, as source text for the editor (Vite's `?raw`). The handout's starter file is
 * read from the assignment at build time; the other examples are files of this folder, type-checked
 * with the app. The page is for students: it never carries the assignment's solution (the browser
 * test pastes the course's manual schedule into the editor instead).
 */
import starter from "../../../../assignments/gemm-relu-add/gemm_relu_add.ts?raw";
import type { WorkloadName } from "../protocol.js";
import racy from "./racy-fetch.ts?raw";
import vectorAdd from "./vector-add.ts?raw";

export interface Example {
  readonly label: string;
  readonly code: string;
  readonly workload: WorkloadName;
}

export const EXAMPLES: Readonly<Record<string, Example>> = {
  starter: { label: "Handout starter file (gemm_relu_add.ts)", code: starter, workload: "gemm-relu-add" },
  "vector-add": { label: "d2l vector add on the GPU", code: vectorAdd, workload: "vector-add" },
  racy: { label: "A racy shared-memory copy", code: racy, workload: "vector-add" },
};

export const DEFAULT_EXAMPLE = "starter";
