/**
 * ZIP archives for hand-ins and packages: written with fflate (synchronous, deflate or stored,
 * Unix permission bits), read with yauzl (which parses the directory and local headers and
 * inflates). What this module adds is the policy a grader needs: every entry is shown to the
 * caller before its data is inflated (so it can refuse a path, a symlink or a size), inflation
 * stops at the size the directory claims (a zip bomb cannot expand past it), and CRCs are checked
 * (yauzl leaves that to its callers).
 */
import { crc32 } from "node:zlib";
import { zipSync, type ZipOptions, type Zippable } from "fflate";
import yauzl from "yauzl";

export interface ZipEntry {
  /** Path inside the archive, with "/" separators (e.g. "gemm_relu_add.ts"). */
  readonly name: string;
  readonly data: Uint8Array;
  /**
   * Unix permission bits (e.g. 0o755 for a script), kept in the central directory's external
   * attributes. writeZip defaults to 0o644; readZip sets it when the archive records Unix modes.
   */
  readonly mode?: number;
}

export class ZipFormatError extends Error {
  constructor(message: string) {
    super(`invalid zip archive: ${message}`);
    this.name = "ZipFormatError";
  }
}

/** What the directory says about an entry, shown to `inspect` before anything is inflated. */
export interface ZipEntryInfo {
  /** As stored, "/"-separated by convention (a hostile archive may hold anything). */
  readonly name: string;
  /** What the entry is, from its Unix mode when the archive records one (else "file", or "directory" for a name ending in "/"). */
  readonly type: "file" | "directory" | "symlink" | "other";
  /** Uncompressed size the directory claims (inflation never goes past it). */
  readonly size: number;
  readonly compressedSize: number;
  /** Entries in the archive, as its end record says. */
  readonly entryCount: number;
}

export interface ReadZipOptions {
  /** Sees each entry before its data is read: throw to refuse the archive, return "skip" to leave the entry out. */
  readonly inspect?: (entry: ZipEntryInfo) => "read" | "skip";
}

const REGULAR_FILE = 0o100000;
const FILE_TYPE_MASK = 0o170000;
const UNIX_HOST = 3; // "version made by", high byte

/** Writes the entries, in order, into one archive. Names must be unique, relative, "/"-separated. */
export function writeZip(entries: readonly ZipEntry[], opts: { modified?: Date; compress?: boolean } = {}): Buffer {
  const seen = new Set<string>();
  const files: Zippable = {};
  const mtime = opts.modified ?? new Date();
  for (const entry of entries) {
    checkEntryName(entry.name, seen);
    const options: ZipOptions = { level: opts.compress === false ? 0 : 6, mtime, os: UNIX_HOST, attrs: (unixFileMode(entry) << 16) >>> 0 };
    files[entry.name] = [entry.data, options];
  }
  return Buffer.from(zipSync(files));
}

/** The st_mode of a regular file with the entry's permissions (rw-r--r-- unless given). */
function unixFileMode(entry: ZipEntry): number {
  const mode = entry.mode ?? 0o644;
  if (!Number.isInteger(mode) || mode < 0 || mode > 0o7777) {
    throw new RangeError(`zip entry ${JSON.stringify(entry.name)}: mode ${String(mode)} is not a permission mask (0 to 0o7777)`);
  }
  return REGULAR_FILE | mode;
}

function checkEntryName(name: string, seen: Set<string>): void {
  if (name === "" || name.startsWith("/") || name.includes("\\") || name.split("/").includes("..")) {
    throw new RangeError(`zip entry name ${JSON.stringify(name)} must be a relative "/"-separated path`);
  }
  if (seen.has(name)) throw new RangeError(`zip entry ${JSON.stringify(name)} appears twice`);
  seen.add(name);
}

/**
 * Reads the archive's entries (through its central directory), each checked against its claimed
 * size and CRC. `inspect` decides per entry, before it is inflated. Errors of the format are
 * ZipFormatErrors; whatever `inspect` throws is passed on as it is.
 */
export async function readZip(archive: Uint8Array, opts: ReadZipOptions = {}): Promise<ZipEntry[]> {
  const buffer = Buffer.from(archive.buffer, archive.byteOffset, archive.byteLength);
  // decodeStrings off: names are decoded below without yauzl's own path policy, so the caller's
  // `inspect` sees (and names in its errors) exactly what the archive holds.
  const zip = await yauzl.fromBufferPromise(buffer, { lazyEntries: true, decodeStrings: false, validateEntrySizes: false }).catch((err: unknown) => {
    throw new ZipFormatError(describeYauzlError(err));
  });
  const entries: ZipEntry[] = [];
  try {
    for await (const raw of iterate(zip)) {
      const name = yauzl.getFileNameLowLevel(raw.generalPurposeBitFlag, raw.fileNameRaw, raw.extraFields, true);
      const unixMode = raw.versionMadeBy >> 8 === UNIX_HOST ? raw.externalFileAttributes >>> 16 : 0;
      const info: ZipEntryInfo = {
        name,
        type: entryType(name, unixMode),
        size: raw.uncompressedSize,
        compressedSize: raw.compressedSize,
        entryCount: zip.entryCount,
      };
      if (opts.inspect?.(info) === "skip") continue;
      if (raw.isEncrypted()) throw new ZipFormatError(`${name} is encrypted`);
      if (!raw.canDecodeFileData()) throw new ZipFormatError(`${name} uses compression method ${raw.compressionMethod} (only stored and deflate are read)`);
      const data = await readBounded(zip, raw, name);
      if (crc32(data) !== raw.crc32) throw new ZipFormatError(`${name} fails its CRC check`);
      entries.push(unixMode !== 0 ? { name, data, mode: unixMode & 0o7777 } : { name, data });
    }
  } finally {
    zip.close();
  }
  return entries;
}

/** yauzl's entries one at a time; its format errors become ZipFormatErrors. */
async function* iterate(zip: yauzl.ZipFile): AsyncGenerator<yauzl.Entry> {
  const it = zip.eachEntry();
  for (;;) {
    let next: IteratorResult<yauzl.Entry>;
    try {
      next = await it.next();
    } catch (err) {
      throw new ZipFormatError(describeYauzlError(err));
    }
    if (next.done === true) return;
    yield next.value;
  }
}

function entryType(name: string, unixMode: number): ZipEntryInfo["type"] {
  const type = unixMode & FILE_TYPE_MASK;
  if (type === 0o120000) return "symlink";
  if (type === 0o040000 || name.endsWith("/")) return "directory";
  return type === 0 || type === REGULAR_FILE ? "file" : "other";
}

/** Inflates the entry, stopping as soon as it passes the size the directory claims. */
async function readBounded(zip: yauzl.ZipFile, entry: yauzl.Entry, name: string): Promise<Buffer> {
  let stream;
  try {
    stream = await zip.openReadStreamPromise(entry);
  } catch (err) {
    throw new ZipFormatError(`${name}: ${describeYauzlError(err)}`);
  }
  const chunks: Buffer[] = [];
  let length = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      length += chunk.length;
      if (length > entry.uncompressedSize) throw new ZipFormatError(`${name} inflates to more than the ${entry.uncompressedSize} bytes the directory says`);
      chunks.push(chunk);
    }
  } catch (err) {
    if (err instanceof ZipFormatError) throw err;
    throw new ZipFormatError(`${name} does not inflate: ${describeYauzlError(err)}`);
  } finally {
    stream.destroy();
  }
  if (length !== entry.uncompressedSize) throw new ZipFormatError(`${name} is ${length} bytes, the directory says ${entry.uncompressedSize}`);
  return Buffer.concat(chunks, length);
}

function describeYauzlError(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
