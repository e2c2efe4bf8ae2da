/**
 * @tessera/course-kit — the contract between course assignments and the autograder: the
 * assignment binding, seeded inputs, and the zip format of hand-ins and packages.
 */
export { type AssignmentBinding, type GpuReferenceKernel, type SolutionFunction, type WorkloadNumerics, moduleFunction } from "./binding.js";
export { uniformArray } from "./inputs.js";
export { type ReadZipOptions, type ZipEntry, type ZipEntryInfo, ZipFormatError, readZip, writeZip } from "./zip.js";
