/**
 * The solution module as the grader in a student's handout sees it (scripts of the autograder
 * bundle it in place of ../solution/index.js): only what the starter hands out anyway.
 */
export { MANUAL_TILE_SIZES, WORKLOAD_SIZE, naiveSchedule, workload } from "../gemm_relu_add.js";
