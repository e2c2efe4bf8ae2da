import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type ZipEntryInfo, ZipFormatError, readZip, writeZip } from "../src/index.js";

const text = (s: string): Uint8Array => new TextEncoder().encode(s);

function hasUnzip(): boolean {
  try {
    execFileSync("unzip", ["-v"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

describe("zip writer and reader", () => {
  it("round-trip files, compressed or stored", async () => {
    const entries = [
      { name: "a.ts", data: text("export const a = 1;\n".repeat(200)) },
      { name: "empty.txt", data: new Uint8Array() },
      { name: "dir/ü.txt", data: text("x") },
    ];
    for (const compress of [true, false]) {
      const back = await readZip(writeZip(entries, { compress }));
      expect(back.map((e) => e.name)).toEqual(entries.map((e) => e.name));
      back.forEach((e, n) => expect(Buffer.from(e.data).equals(Buffer.from(entries[n]!.data))).toBe(true));
    }
    // Deflate is used where it helps.
    expect(writeZip(entries).length).toBeLessThan(writeZip(entries, { compress: false }).length);
  });

  it("round-trip arbitrary contents", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.uint8Array({ maxLength: 2000 }), { maxLength: 5 }), async (blobs) => {
        const entries = blobs.map((data, n) => ({ name: `f${n}.bin`, data }));
        const back = await readZip(writeZip(entries));
        return back.length === entries.length && back.every((e, n) => Buffer.from(e.data).equals(Buffer.from(entries[n]!.data)));
      }),
      { numRuns: 50 },
    );
  });

  it("refuse an entry that inflates past the size its directory claims (a zip bomb)", async () => {
    const zip = Buffer.from(writeZip([{ name: "bomb.ts", data: new Uint8Array(1 << 20) }]));
    // Patch the claimed size in the central directory (offset 24 of its entry) down to 10 bytes.
    const central = zip.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
    zip.writeUInt32LE(10, central + 24);
    await expect(readZip(zip)).rejects.toThrow(/bomb\.ts inflates to more than the 10 bytes the directory says/);
  });

  it("detect corruption and reject bad names", async () => {
    const zip = writeZip([{ name: "a.txt", data: text("hello hello hello hello") }], { compress: false });
    const corrupted = Buffer.from(zip);
    const firstDataByte = 30 + "a.txt".length;
    corrupted.writeUInt8(corrupted.readUInt8(firstDataByte) ^ 0xff, firstDataByte);
    await expect(readZip(corrupted)).rejects.toThrow(/a\.txt fails its CRC check/);
    await expect(readZip(text("not a zip"))).rejects.toThrow(ZipFormatError);
    await expect(readZip(text("not a zip"))).rejects.toThrow(
      /^invalid zip archive: End of central directory record signature not found\. Either not a zip file, or file is truncated\.$/,
    );
    expect(() => writeZip([{ name: "../x", data: text("") }])).toThrow(/relative/);
    expect(() =>
      writeZip([
        { name: "x", data: text("") },
        { name: "x", data: text("") },
      ]),
    ).toThrow(/twice/);
  });

  it("keep Unix permission bits (0o644 unless given) and reject impossible modes", async () => {
    const back = await readZip(
      writeZip([
        { name: "run.sh", data: text("#!/bin/sh\n"), mode: 0o755 },
        { name: "a.txt", data: text("a") },
      ]),
    );
    expect(back.map((e) => e.mode)).toEqual([0o755, 0o644]);
    expect(() => writeZip([{ name: "x", data: text(""), mode: 0o10000 }])).toThrow(/mode 4096 is not a permission mask/);
    expect(() => writeZip([{ name: "x", data: text(""), mode: 1.5 }])).toThrow(/not a permission mask/);
  });

  it("report no mode for archives made on a host that records none", async () => {
    const zip = Buffer.from(writeZip([{ name: "a.txt", data: text("a"), mode: 0o600 }]));
    const central = zip.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
    zip.writeUInt8(0, central + 5); // "made by" MS-DOS: the external attributes are not a Unix mode
    expect((await readZip(zip))[0]?.mode).toBeUndefined();
  });

  it("show every entry to inspect before reading it: type, claimed sizes, entry count", async () => {
    const zip = Buffer.from(
      writeZip(
        [
          { name: "a.txt", data: text("aaaa") },
          { name: "link", data: text("/etc/passwd") },
          { name: "b.txt", data: text("b") },
        ],
        { compress: false },
      ),
    );
    // Make "link" a symlink: S_IFLNK in the high half of its external attributes (offset 38 of its central entry).
    const central = zip.indexOf(Buffer.from("PK\x01\x02", "latin1"), zip.indexOf(Buffer.from("PK\x01\x02", "latin1")) + 1);
    zip.writeUInt32LE((0o120777 << 16) >>> 0, central + 38);
    const seen: ZipEntryInfo[] = [];
    const read = await readZip(zip, { inspect: (e) => (seen.push(e), e.type === "symlink" ? "skip" : "read") });
    expect(seen.map((e) => [e.name, e.type, e.size, e.entryCount])).toEqual([
      ["a.txt", "file", 4, 3],
      ["link", "symlink", 11, 3],
      ["b.txt", "file", 1, 3],
    ]);
    expect(read.map((e) => e.name)).toEqual(["a.txt", "b.txt"]);
    await expect(
      readZip(zip, {
        inspect: (e) => {
          if (e.type === "symlink") throw new Error(`refused ${e.name}`);
          return "read";
        },
      }),
    ).rejects.toThrow("refused link");
  });

  it.skipIf(!hasUnzip())("produce archives that unzip accepts", () => {
    const dir = mkdtempSync(join(tmpdir(), "zip-"));
    const path = join(dir, "t.zip");
    writeFileSync(
      path,
      writeZip([
        { name: "a.ts", data: text("let x = 1;\n".repeat(50)) },
        { name: "b.txt", data: text("b") },
      ]),
    );
    expect(execFileSync("unzip", ["-Z1", path], { encoding: "utf8" }).trim().split("\n")).toEqual(["a.ts", "b.txt"]);
    execFileSync("unzip", ["-tq", path]); // tests CRCs; throws on a bad archive
    expect(execFileSync("unzip", ["-p", path, "a.ts"], { encoding: "utf8" })).toBe("let x = 1;\n".repeat(50));
  });

  it.skipIf(!hasUnzip())("produce modes that unzip restores", () => {
    const dir = mkdtempSync(join(tmpdir(), "zip-"));
    writeFileSync(join(dir, "t.zip"), writeZip([{ name: "run.sh", data: text("#!/bin/sh\n"), mode: 0o755 }]));
    execFileSync("unzip", ["-q", join(dir, "t.zip"), "-d", join(dir, "out")]);
    expect(statSync(join(dir, "out", "run.sh")).mode & 0o777).toBe(0o755);
    rmSync(dir, { recursive: true });
  });
});
