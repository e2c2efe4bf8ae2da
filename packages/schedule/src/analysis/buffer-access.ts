/**
 * Looking up the buffer a primitive works on by its position in a block's reads or writes
 * (TVM's `GetNthAccessBuffer`), and checking storage-scope strings (TVM's `CheckStorageScope`).
 * Shared by cache_read/cache_write, set_scope and storage_align.
 */
import { type Block, type BufferRegion, STORAGE_SCOPES, type StorageScope } from "@tessera/ir";
import { ScheduleError } from "../errors.js";

export type AccessKind = "read" | "write";

/** The `buffer_index` does not name one of the block's read (or write) regions. */
export class BufferIndexOutOfRangeError extends ScheduleError {
  override name = "BufferIndexOutOfRangeError";
}

/** The storage scope string is not one TVM knows. */
export class InvalidStorageScopeError extends ScheduleError {
  override name = "InvalidStorageScopeError";
}

/** The `n`-th read or write region of `block`, or a BufferIndexOutOfRangeError. */
export function nthAccessRegion(primitive: string, block: Block, n: unknown, kind: AccessKind): BufferRegion {
  const regions = kind === "read" ? block.reads : block.writes;
  if (typeof n !== "number" || !Number.isInteger(n) || n < 0 || n >= regions.length) {
    throw new BufferIndexOutOfRangeError(
      primitive,
      `The input \`buffer_index\` is out of range. It is required to be in range [0, ${regions.length}) but got ${String(n)}: ` +
        `the block "${block.name}" has ${regions.length} ${kind} region(s).`,
      [block],
    );
  }
  return regions[n]!;
}

/**
 * Checks a storage scope string and narrows its type. Schedules accept only the scopes our code
 * generators know (TVM accepts any tagged scope of its ranks, which parse but do not lower here).
 */
export function checkStorageScope(primitive: string, scope: unknown): StorageScope {
  if (typeof scope !== "string" || !(STORAGE_SCOPES as readonly string[]).includes(scope)) {
    throw new InvalidStorageScopeError(primitive, `The input storage scope "${String(scope)}" is invalid: it must be one of ${STORAGE_SCOPES.join(", ")}.`);
  }
  return scope as StorageScope;
}
