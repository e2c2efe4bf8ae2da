/**
 * Errors of the meta-schedule package. Each names what is wrong and where (the file, the record,
 * the space function), so that a tuning run never ends in a stack trace or a lost database.
 */
import { TesseraError } from "@tessera/ir";

/** Any failure of tuning that the user can act on. */
export class MetaScheduleError extends TesseraError {
  override name = "MetaScheduleError";
}

/** A database file that cannot be read: corrupt, foreign, or of another format version. */
export class DatabaseError extends MetaScheduleError {
  override name = "DatabaseError";
  constructor(
    readonly file: string,
    /** 1-based line of the offending record, when the problem is one record. */
    readonly line: number | undefined,
    detail: string,
  ) {
    super(`${file}${line === undefined ? "" : `:${line}`}: ${detail}`);
  }
}

/** A design space that cannot be built: the space function threw, or does not apply to the workload. */
export class SpaceGenerationError extends MetaScheduleError {
  override name = "SpaceGenerationError";
}

/** An optional peer dependency (the chart or progress-bar packages) is not installed. */
export class MissingPeerDependencyError extends MetaScheduleError {
  override name = "MissingPeerDependencyError";
  constructor(
    readonly packages: readonly string[],
    purpose: string,
  ) {
    super(`install ${packages.join(" and ")} to ${purpose} (optional peer dependencies of @tessera/meta-schedule)`);
  }
}
