/** Where the grader looks for the assignment, said with an error about a manifest it cannot read. */
export const MANIFEST_HINT =
  "(the assignment folder is the one beside the grader's sources, or the folder named by TESSERA_ASSIGNMENT_ROOT; the GPU bundle's run.sh points it at the copy the bundle carries)";
