import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ZipFormatError, readZip, writeZip } from "../src/index.js";

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
  it("round-trip files, compressed or stored", () => {
    const entries = [
      { name: "a.ts", data: text("export const a = 1;\n".repeat(200)) },
      { name: "empty.txt", data: new Uint8Array() },
      { name: "dir/ü.txt", data: text("x") },
    ];
    for (const compress of [true, false]) {
      const back = readZip(writeZip(entries, { compress }));
      expect(back.map((e) => e.name)).toEqual(entries.map((e) => e.name));
      back.forEach((e, n) => expect(Buffer.from(e.data).equals(Buffer.from(entries[n]!.data))).toBe(true));
    }
    // Deflate is used where it helps.
    expect(writeZip(entries).length).toBeLessThan(writeZip(entries, { compress: false }).length);
  });

  it("round-trip arbitrary contents", () => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ maxLength: 2000 }), { maxLength: 5 }), (blobs) => {
        const entries = blobs.map((data, n) => ({ name: `f${n}.bin`, data }));
        const back = readZip(writeZip(entries));
        return back.length === entries.length && back.every((e, n) => Buffer.from(e.data).equals(Buffer.from(entries[n]!.data)));
      }),
      { numRuns: 50 },
    );
  });

  it("detect corruption and reject bad names", () => {
    const zip = writeZip([{ name: "a.txt", data: text("hello hello hello hello") }], { compress: false });
    const corrupted = Buffer.from(zip);
    const firstDataByte = 30 + "a.txt".length;
    corrupted.writeUInt8(corrupted.readUInt8(firstDataByte) ^ 0xff, firstDataByte);
    expect(() => readZip(corrupted)).toThrow(/a\.txt fails its CRC check/);
    expect(() => readZip(text("not a zip"))).toThrow(ZipFormatError);
    expect(() => writeZip([{ name: "../x", data: text("") }])).toThrow(/relative/);
    expect(() => writeZip([{ name: "x", data: text("") }, { name: "x", data: text("") }])).toThrow(/twice/);
  });

  it.skipIf(!hasUnzip())("produce archives that unzip accepts", () => {
    const dir = mkdtempSync(join(tmpdir(), "zip-"));
    const path = join(dir, "t.zip");
    writeFileSync(path, writeZip([{ name: "a.ts", data: text("let x = 1;\n".repeat(50)) }, { name: "b.txt", data: text("b") }]));
    expect(execFileSync("unzip", ["-Z1", path], { encoding: "utf8" }).trim().split("\n")).toEqual(["a.ts", "b.txt"]);
    execFileSync("unzip", ["-tq", path]); // tests CRCs; throws on a bad archive
    expect(execFileSync("unzip", ["-p", path, "a.ts"], { encoding: "utf8" })).toBe("let x = 1;\n".repeat(50));
  });
});
