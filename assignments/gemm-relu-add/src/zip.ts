/**
 * A minimal ZIP archive writer and reader (PKWARE APPNOTE: local headers, central directory,
 * end record; deflate or stored; no ZIP64, no encryption, no data descriptors). Enough for a
 * hand-in of a few source files, and the reader checks what the writer produces.
 */
import { crc32, deflateRawSync, inflateRawSync } from "node:zlib";

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

const LOCAL_HEADER = 0x04034b50;
const CENTRAL_HEADER = 0x02014b50;
const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
const METHOD_STORED = 0;
const METHOD_DEFLATE = 8;
const VERSION = 20; // 2.0: deflate
const UTF8_NAMES = 0x0800; // general-purpose flag bit 11

/** MS-DOS date and time fields (2-second resolution, years 1980–2107). */
function dosDateTime(date: Date): { time: number; day: number } {
  const year = Math.min(Math.max(date.getFullYear(), 1980), 2107);
  return {
    time: (date.getHours() << 11) | (date.getMinutes() << 5) | (date.getSeconds() >> 1),
    day: ((year - 1980) << 9) | ((date.getMonth() + 1) << 5) | date.getDate(),
  };
}

/** Writes the entries, in order, into one archive. Names must be unique, relative, "/"-separated. */
export function writeZip(entries: readonly ZipEntry[], opts: { modified?: Date; compress?: boolean } = {}): Buffer {
  const { time, day } = dosDateTime(opts.modified ?? new Date());
  const seen = new Set<string>();
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    checkEntryName(entry.name, seen);
    const name = Buffer.from(entry.name, "utf8");
    const deflated = opts.compress === false ? undefined : deflateRawSync(entry.data);
    // Store when deflate does not help (tiny files).
    const useDeflate = deflated !== undefined && deflated.length < entry.data.length;
    const body = useDeflate ? deflated : Buffer.from(entry.data);
    const crc = crc32(entry.data);

    const local = Buffer.alloc(30);
    local.writeUInt32LE(LOCAL_HEADER, 0);
    local.writeUInt16LE(VERSION, 4);
    local.writeUInt16LE(UTF8_NAMES, 6);
    local.writeUInt16LE(useDeflate ? METHOD_DEFLATE : METHOD_STORED, 8);
    local.writeUInt16LE(time, 10);
    local.writeUInt16LE(day, 12);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(entry.data.length, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28);

    const central = Buffer.alloc(46);
    central.writeUInt32LE(CENTRAL_HEADER, 0);
    central.writeUInt16LE((3 << 8) | VERSION, 4); // made by: Unix
    central.writeUInt16LE(VERSION, 6);
    local.copy(central, 8, 6, 30); // flags … name length, extra length: same as the local header
    central.writeUInt16LE(0, 32); // comment length
    central.writeUInt16LE(0, 34); // disk number
    central.writeUInt16LE(0, 36); // internal attributes
    central.writeUInt32LE((unixFileMode(entry) << 16) >>> 0, 38); // external attributes: regular file and its permissions
    central.writeUInt32LE(offset, 42);

    locals.push(local, name, body);
    centrals.push(central, name);
    offset += local.length + name.length + body.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(END_OF_CENTRAL_DIRECTORY, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

const REGULAR_FILE = 0o100000;
const UNIX_HOST = 3; // "version made by", high byte

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

/** Reads every entry of an archive (through its central directory), checking sizes and CRCs. */
export function readZip(archive: Uint8Array): ZipEntry[] {
  const buf = Buffer.from(archive.buffer, archive.byteOffset, archive.byteLength);
  const endAt = findEndRecord(buf);
  const count = buf.readUInt16LE(endAt + 10);
  let at = buf.readUInt32LE(endAt + 16);
  const entries: ZipEntry[] = [];
  for (let n = 0; n < count; n++) {
    need(buf, at, 46, "central directory");
    if (buf.readUInt32LE(at) !== CENTRAL_HEADER) throw new ZipFormatError(`central directory entry ${n} has a bad signature`);
    const madeByUnix = buf.readUInt8(at + 5) === UNIX_HOST;
    const method = buf.readUInt16LE(at + 10);
    const crc = buf.readUInt32LE(at + 16);
    const compressedSize = buf.readUInt32LE(at + 20);
    const size = buf.readUInt32LE(at + 24);
    const nameLength = buf.readUInt16LE(at + 28);
    const skip = buf.readUInt16LE(at + 30) + buf.readUInt16LE(at + 32);
    const unixMode = buf.readUInt32LE(at + 38) >>> 16;
    const localAt = buf.readUInt32LE(at + 42);
    need(buf, at + 46, nameLength, "central directory");
    const name = buf.toString("utf8", at + 46, at + 46 + nameLength);
    at += 46 + nameLength + skip;

    need(buf, localAt, 30, `local header of ${name}`);
    if (buf.readUInt32LE(localAt) !== LOCAL_HEADER) throw new ZipFormatError(`local header of ${name} has a bad signature`);
    const dataAt = localAt + 30 + buf.readUInt16LE(localAt + 26) + buf.readUInt16LE(localAt + 28);
    need(buf, dataAt, compressedSize, `data of ${name}`);
    const body = buf.subarray(dataAt, dataAt + compressedSize);
    let data: Buffer;
    if (method === METHOD_STORED) data = Buffer.from(body);
    else if (method === METHOD_DEFLATE) data = inflateBounded(body, size, name);
    else throw new ZipFormatError(`${name} uses compression method ${method} (only stored and deflate are read)`);
    if (data.length !== size) throw new ZipFormatError(`${name} is ${data.length} bytes, the directory says ${size}`);
    if (crc32(data) !== crc) throw new ZipFormatError(`${name} fails its CRC check`);
    entries.push(madeByUnix && unixMode !== 0 ? { name, data, mode: unixMode & 0o7777 } : { name, data });
  }
  return entries;
}

/** Inflates at most `size` bytes (the directory's claim): a small archive cannot expand into gigabytes. */
function inflateBounded(body: Buffer, size: number, name: string): Buffer {
  try {
    return inflateRawSync(body, { maxOutputLength: Math.max(1, size) });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE") throw new ZipFormatError(`${name} inflates to more than the ${size} bytes the directory says`);
    throw new ZipFormatError(`${name} does not inflate: ${(err as Error).message}`);
  }
}

function findEndRecord(buf: Buffer): number {
  // The end record is the last 22 bytes plus an optional comment of up to 65535 bytes.
  for (let at = buf.length - 22; at >= Math.max(0, buf.length - 22 - 0xffff); at--) {
    if (buf.readUInt32LE(at) === END_OF_CENTRAL_DIRECTORY) return at;
  }
  throw new ZipFormatError("no end-of-central-directory record (not a zip file?)");
}

function need(buf: Buffer, at: number, length: number, what: string): void {
  if (at + length > buf.length) throw new ZipFormatError(`${what} runs past the end of the file`);
}
