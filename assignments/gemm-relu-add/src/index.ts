/**
 * @tessera/assignment-gemm-relu-add — the assignment as data for the autograder and the scripts:
 * metadata (student files, graded functions, hand-in list), paths, handout and hand-in builders.
 */
export * from "./metadata.js";
export * from "./paths.js";
export { AssignmentCommandError } from "./errors.js";
export {
  HANDOUT_FILES,
  HANDOUT_GENERATED,
  type HandoutOptions,
  type HandoutProject,
  checkHandoutTarget,
  handoutFiles,
  writeHandout,
} from "./handout.js";
export {
  HANDOUT_GRADER_DIR,
  HANDOUT_TARBALL_DIR,
  type HandoutTarball,
  type HandoutVersions,
  handoutPackageJson,
  handoutTsconfig,
  packedTarballName,
} from "./handout-project.js";
export { type UnfinishedWork, todoThrows, traceIsEmpty, unfinishedWork } from "./unfinished-work.js";
export { type HandinOptions, type HandinResult, createHandin } from "./handin.js";
export { type ReadZipOptions, type ZipEntry, type ZipEntryInfo, ZipFormatError, readZip, writeZip } from "@tessera/course-kit";
