/**
 * Batch grading: a folder of submissions (a folder with the instructor solution, a hand-in zip of
 * the starter files, an unsafe zip, a file that is no zip, a folder without the student files)
 * graded one after another into per-submission results and a summary.csv; and the pieces on
 * their own: discovery, zip extraction, locating the files, CSV, progress, the command line.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { copyFile, mkdir, mkdtemp, readFile, readdir, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HANDIN_FILES, assignmentRoot, writeZip } from "@tessera/assignment-gemm-relu-add";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assignmentBinding, DEFAULT_ASSIGNMENT } from "../src/assignment.js";
import { csvField, toCsv } from "../src/batch/csv.js";
import { discoverSubmissions } from "../src/batch/discover.js";
import { SubmissionError } from "../src/batch/errors.js";
import { HANDIN_LIMITS, extractHandin } from "../src/batch/extract.js";
import { type OutcomeSummary, gradeOne } from "../src/batch/grade-one.js";
import { locateSubmissionFiles } from "../src/batch/locate.js";
import { progressReporter } from "../src/batch/progress.js";
import { type BatchResult, runBatch } from "../src/batch/run-batch.js";
import { memoryIO } from "../src/cli/io.js";
import { runGradeCli } from "../src/cli/main.js";
import { loadManifest } from "../src/manifest/index.js";
import { GradescopeResultsSchema } from "../src/report/gradescope.js";

const binding = assignmentBinding(DEFAULT_ASSIGNMENT);
const manifest = loadManifest(binding.manifestPath);
const solutionDir = join(binding.root, "solution");
/** A folder name that needs CSV quoting. */
const ODD_NAME = 'doe, "jj"';

let scratch: string;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), "tessera-batch-test-"));
});

afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

async function freshDir(name: string): Promise<string> {
  const dir = join(scratch, name);
  await mkdir(dir, { recursive: true });
  return dir;
}

const text = (s: string): Buffer => Buffer.from(s, "utf8");

/** writeZip refuses unsafe names, so an attacker's archive is made by renaming an entry in place. */
function zipWithEntryName(unsafeName: string, data: Buffer): Buffer {
  const placeholder = "x".repeat(Buffer.byteLength(unsafeName));
  const zip = writeZip([{ name: placeholder, data }], { compress: false });
  const from = Buffer.from(placeholder);
  for (let at = zip.indexOf(from); at >= 0; at = zip.indexOf(from, at + 1)) Buffer.from(unsafeName).copy(zip, at);
  return zip;
}

/** Calls `patch` with the offset of the `index`-th central directory entry of `zip`. */
function patchCentralEntry(zip: Buffer, index: number, patch: (at: number) => void): void {
  const signature = Buffer.from([0x50, 0x4b, 0x01, 0x02]);
  let at = zip.indexOf(signature);
  for (let n = 0; n < index; n++) at = zip.indexOf(signature, at + 1);
  expect(at, `central entry ${index}`).toBeGreaterThanOrEqual(0);
  patch(at);
}

/** RFC 4180 reader, independent of the writer under test. */
function parseCsv(csv: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < csv.length; i++) {
    const c = csv[i]!;
    if (quoted) {
      if (c === '"' && csv[i + 1] === '"') (field += '"'), i++;
      else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ",") row.push(field), (field = "");
    else if (c === "\r" && csv[i + 1] === "\n") {
      row.push(field), rows.push(row), (row = []), (field = ""), i++;
    } else field += c;
  }
  expect(field === "" && row.length === 0, "the CSV ends with a line break").toBe(true);
  return rows;
}

describe("batch grading of a folder of submissions", () => {
  let dir: string;
  let out: string;
  let result: BatchResult;
  const io = memoryIO();
  const byName = (name: string): OutcomeSummary => result.outcomes.find((o) => o.name === name)!;

  beforeAll(async () => {
    dir = await freshDir("submissions");
    out = join(scratch, "out");
    await mkdir(join(dir, "solution"));
    for (const f of ["gemm_relu_add.ts", "trace_submission.ts"]) await copyFile(join(solutionDir, f), join(dir, "solution", f));
    const starter = await Promise.all(HANDIN_FILES.map(async (name) => ({ name, data: await readFile(join(assignmentRoot(), name)) })));
    await writeFile(join(dir, "starter.zip"), writeZip(starter));
    await writeFile(join(dir, "evil.zip"), zipWithEntryName("../evil.ts", text("export const x = 1;\n")));
    await writeFile(join(dir, "notazip.zip"), text("this is not a zip archive\n"));
    await mkdir(join(dir, ODD_NAME));
    await writeFile(join(dir, ODD_NAME, "notes.md"), text("I forgot the files\n"));
    await writeFile(join(dir, "README.txt"), text("not a submission\n"));
    result = await runBatch({ dir, out, binding, manifest, noGpuReason: "test without a GPU", numerics: { rounds: 1 }, progress: progressReporter(io) });
  });

  it("grades every sub-folder and .zip, in name order, and ignores other files", () => {
    expect(result.outcomes.map((o) => [o.name, o.status])).toEqual([
      [ODD_NAME, "error"],
      ["evil", "error"],
      ["notazip", "error"],
      ["solution", "graded"],
      ["starter", "graded"],
    ]);
    expect(result.ignored).toEqual(["README.txt"]);
  });

  it("scores the solution 80 of 80 without a GPU and the starter files 0", () => {
    const solution = byName("solution");
    const starter = byName("starter");
    expect(solution.status === "graded" && [solution.score, solution.maxScore]).toEqual([80, 80]);
    expect(starter.status === "graded" && starter.score).toBe(0);
  });

  it("writes a valid results.json and a report.txt for every submission", async () => {
    for (const o of result.outcomes) {
      const results = GradescopeResultsSchema.parse(JSON.parse(await readFile(join(out, o.name, "results.json"), "utf8")));
      const report = await readFile(join(out, o.name, "report.txt"), "utf8");
      if (o.status === "graded") {
        expect(results.score).toBe(o.score);
        expect(results.tests.map((t) => t.name)).toEqual(manifest.tasks.map((t) => t.title));
        expect(report).toMatch(new RegExp(`Total\\s+${o.score} / ${o.maxScore}`));
      } else {
        expect(results).toMatchObject({ score: 0, tests: [] });
        expect(results.output).toContain(o.error);
        expect(report).toContain(o.error);
      }
    }
  });

  it("explains each broken submission", () => {
    const error = (name: string): string => {
      const o = byName(name);
      return o.status === "error" ? o.error : "(graded)";
    };
    expect(error("evil")).toBe('evil.zip: entry "../evil.ts" points outside the archive (".." is not allowed)');
    expect(error("notazip")).toMatch(/^notazip\.zip: invalid zip archive: End of central directory record signature not found/);
    expect(error(ODD_NAME)).toBe(`${ODD_NAME}: none of gemm_relu_add.ts, trace_submission.ts at its top level or inside a single folder (it has: notes.md)`);
  });

  it("writes summary.csv with one column per task, quoted where needed", async () => {
    const rows = parseCsv(await readFile(result.reports.summaryPath, "utf8"));
    const pointTasks = manifest.tasks.filter((t) => t.points > 0).map((t) => t.id);
    expect(rows[0]).toEqual([
      "submission",
      "status",
      "score",
      "max_score",
      ...pointTasks,
      "manual-schedule-correct",
      "tuned-schedule-correct",
      "seconds",
      "error",
    ]);
    expect(rows.slice(1).map((r) => r[0])).toEqual(result.outcomes.map((o) => o.name));
    const row = (name: string): Record<string, string> => Object.fromEntries(rows[0]!.map((h, n) => [h, rows.find((r) => r[0] === name)![n]!]));
    expect(row("solution")).toMatchObject({
      status: "graded",
      score: "80",
      max_score: "80",
      "shared-memory-tiling": "20",
      "write-cache": "10",
      "auto-tuning": "0",
      error: "",
    });
    expect(Number(row("solution").seconds)).toBeGreaterThan(0);
    expect(row("starter")).toMatchObject({ status: "graded", score: "0", "shared-memory-tiling": "0", error: "" });
    // Numerics are verdicts, not the gate's 0 points (regression: 0 for every submission).
    expect([row("solution")["manual-schedule-correct"], row("solution")["tuned-schedule-correct"]]).toEqual(["pass", "pass"]);
    expect([row("starter")["manual-schedule-correct"], row("starter")["tuned-schedule-correct"]]).toEqual(["not-checked", "not-checked"]);
    // The name and the message hold commas and quotes: they survive the round trip.
    const odd = byName(ODD_NAME);
    expect(row(ODD_NAME)).toMatchObject({
      status: "error",
      score: "0",
      max_score: "",
      "shared-memory-tiling": "",
      error: odd.status === "error" ? odd.error : "(graded)",
    });
    expect(rows.every((r) => r.length === rows[0]!.length)).toBe(true);
  });

  it("pass-rates.md counts the numerics verdicts (regression: 'all its checks were skipped')", async () => {
    const md = await readFile(result.reports.passRatesPath, "utf8");
    expect(md).toContain("| Part 1 numerical correctness (manual-schedule-correct) | 1 (20%) | 0 | 4 |");
    expect(md).not.toMatch(/Part 1 numerical correctness.*all its checks were skipped/);
  });

  it("names a zip by its name, never by the temporary folder it was unpacked into", async () => {
    const report = await readFile(join(out, "starter", "report.txt"), "utf8");
    expect(report).toMatch(/^Graded: starter\.zip \(full grading\)$/m);
    for (const o of result.outcomes) {
      for (const f of ["report.txt", "results.json"]) expect(await readFile(join(out, o.name, f), "utf8")).not.toMatch(/tessera-batch-|tessera-grade-|\/tmp\//);
    }
  });

  it("reports one progress line per submission, with the ETA, when stderr is no terminal", () => {
    const lines = io.err.join("").trimEnd().split("\n");
    expect(lines).toHaveLength(5);
    expect(lines[0]).toMatch(/^\[1\/5\] doe, "jj": error \(\d+\.\d s\): doe, "jj": none of .*, ETA \d/);
    expect(lines[3]).toMatch(/^\[4\/5\] solution: 80 \/ 80 \(\d+\.\d s\), ETA \d+\.\ds$/);
    expect(lines[4]).toMatch(/^\[5\/5\] starter: 0 \/ 80 \(\d+\.\d s\), ETA 0\.0s$/);
  });

  it("leaves only its own output in OUT", async () => {
    expect((await readdir(out)).sort()).toEqual([...result.outcomes.map((o) => o.name), "histogram.svg", "pass-rates.md", "summary.csv"].sort());
    for (const o of result.outcomes) expect((await readdir(join(out, o.name))).sort()).toEqual(["outcome.json", "report.txt", "results.json"]);
  });
});

describe("a crash inside the grader", () => {
  it("becomes that submission's error, with the stack kept in report.txt", async () => {
    const broken = {
      ...binding,
      workload: (): never => {
        throw new Error("workload exploded");
      },
    };
    const outcome = await gradeOne({ name: "solution", kind: "folder", path: solutionDir }, { binding: broken, manifest, numerics: { rounds: 1 } });
    expect(outcome.status).toBe("error");
    expect(outcome.status === "error" && outcome.error).toBe("grading failed: workload exploded");
    expect(outcome.reportText).toMatch(/workload exploded\n[\s\S]*\n\s+at /);
    expect(GradescopeResultsSchema.parse(outcome.results).score).toBe(0);
  });
});

describe("discovering submissions", () => {
  it("keeps names unique and clear of summary.csv, skips hidden entries and the output folder", async () => {
    const dir = await freshDir("discover");
    for (const sub of ["alice", ".git", "__MACOSX", "out", "summary.csv"]) await mkdir(join(dir, sub));
    for (const file of ["alice.zip", "bob.ZIP", "summary.csv.zip", ".hidden.zip", "notes.txt"]) await writeFile(join(dir, file), "");
    const { submissions, ignored } = await discoverSubmissions(dir, [join(dir, "out")]);
    expect(submissions.map((s) => [s.name, s.kind])).toEqual([
      ["alice", "folder"],
      ["alice.zip", "zip"],
      ["bob", "zip"],
      ["summary.csv-2", "folder"], // not OUT/summary.csv: that is the summary's
      ["summary.csv.zip", "zip"],
    ]);
    expect(ignored).toEqual(["notes.txt"]);
  });
});

describe("extracting a hand-in", () => {
  async function extract(name: string, zip: Buffer, limits = HANDIN_LIMITS): Promise<{ dest: string; files: string[] }> {
    const dir = await mkdtemp(join(scratch, "extract-"));
    await writeFile(join(dir, `${name}.zip`), zip);
    const dest = join(dir, "files");
    await mkdir(dest);
    return { dest, files: await extractHandin(join(dir, `${name}.zip`), dest, limits) };
  }

  it("unpacks files and folders, skipping folder entries and macOS metadata", async () => {
    const zip = writeZip([
      { name: "hw/", data: text("") },
      { name: "hw/gemm_relu_add.ts", data: text("export {};\n") },
      { name: "hw/.DS_Store", data: text("junk") },
      { name: "__MACOSX/hw/._gemm_relu_add.ts", data: text("junk") },
    ]);
    const { dest, files } = await extract("nested", zip);
    expect(files).toEqual(["hw/gemm_relu_add.ts"]);
    expect(await readFile(join(dest, "hw", "gemm_relu_add.ts"), "utf8")).toBe("export {};\n");
    expect(await locateSubmissionFiles(dest, ["gemm_relu_add.ts"], "nested.zip")).toBe(join(dest, "hw"));
  });

  it.each([
    ["/etc/passwd", /entry "\/etc\/passwd" has an absolute path/],
    ["C:/x.ts", /entry "C:\/x.ts" has an absolute path/],
    ["a/../../x.ts", /entry "a\/..\/..\/x.ts" points outside the archive/],
    ["..\\x.ts", /entry "..\\\\x.ts" points outside the archive/],
  ])("refuses the entry %s", async (name, message) => {
    const err: unknown = await extract("unsafe", zipWithEntryName(name, text("x"))).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SubmissionError);
    expect((err as Error).message).toMatch(message);
  });

  it("refuses archives beyond the size and count limits", async () => {
    const files = Array.from({ length: 3 }, (_, n) => ({ name: `f${n}.ts`, data: Buffer.alloc(600, 32) }));
    const zip = writeZip(files);
    const limits = { maxArchiveBytes: 10_000, maxEntries: 3, maxFileBytes: 1000, maxTotalBytes: 2000 };
    await expect(extract("ok", zip, limits)).resolves.toMatchObject({ files: ["f0.ts", "f1.ts", "f2.ts"] });
    await expect(extract("count", zip, { ...limits, maxEntries: 2 })).rejects.toThrow("count.zip has 3 entries; a hand-in may have at most 2");
    await expect(extract("file", zip, { ...limits, maxFileBytes: 500 })).rejects.toThrow("file.zip: f0.ts is 0.6 KB; a hand-in file may be at most 0.5 KB");
    await expect(extract("total", zip, { ...limits, maxTotalBytes: 1000 })).rejects.toThrow("total.zip unpacks to more than 1.0 KB");
    await expect(extract("archive", zip, { ...limits, maxArchiveBytes: 100 })).rejects.toThrow(
      /^archive\.zip is \d+\.\d KB; a hand-in archive may be at most 0\.1 KB$/,
    );
  });

  it("refuses a symbolic link, before writing anything", async () => {
    const zip = writeZip(
      [
        { name: "gemm_relu_add.ts", data: text("export {};\n") },
        { name: "trace_submission.ts", data: text("/etc/passwd") },
      ],
      { compress: false },
    );
    patchCentralEntry(zip, 1, (at) => zip.writeUInt32LE((0o120777 << 16) >>> 0, at + 38)); // S_IFLNK in the external attributes
    const dir = await mkdtemp(join(scratch, "symlink-"));
    await writeFile(join(dir, "link.zip"), zip);
    await mkdir(join(dir, "files"));
    await expect(extractHandin(join(dir, "link.zip"), join(dir, "files"))).rejects.toThrow(
      'link.zip: entry "trace_submission.ts" is a symbolic link; a hand-in holds regular files only',
    );
    expect(await readdir(join(dir, "files"))).toEqual([]);
  });

  it("refuses a zip bomb: by its claimed size before inflating, or when it inflates past the claim", async () => {
    const bomb = writeZip([{ name: "bomb.ts", data: Buffer.alloc(4 * 1024 * 1024, 32) }]);
    expect(bomb.length).toBeLessThan(HANDIN_LIMITS.maxArchiveBytes);
    await expect(extract("honest", bomb)).rejects.toThrow("honest.zip: bomb.ts is 4.0 MB; a hand-in file may be at most 1.0 MB");
    // The same archive claiming 100 bytes: inflation stops there.
    const lying = Buffer.from(bomb);
    patchCentralEntry(lying, 0, (at) => lying.writeUInt32LE(100, at + 24));
    await expect(extract("lying", lying)).rejects.toThrow("lying.zip: invalid zip archive: bomb.ts inflates to more than the 100 bytes the directory says");
  });

  it.skipIf(spawnSync("zip", ["-v"]).status !== 0)("reads what Info-ZIP's zip writes (folders, streamed entries) and refuses its symlinks", async () => {
    const dir = await mkdtemp(join(scratch, "infozip-"));
    await mkdir(join(dir, "hw"));
    await writeFile(join(dir, "hw", "gemm_relu_add.ts"), "export const a = 1;\n".repeat(100));
    // Streamed from stdin: sizes and CRC in a data descriptor after the data.
    execFileSync("zip", ["-q", "-r", join(dir, "plain.zip"), "hw"], { cwd: dir });
    execFileSync("zip", ["-q", "-fd", join(dir, "streamed.zip"), "-"], { cwd: dir, input: "export {};\n" });
    for (const name of ["plain", "streamed"]) {
      await mkdir(join(dir, `${name}-files`));
      const files = await extractHandin(join(dir, `${name}.zip`), join(dir, `${name}-files`));
      expect(files).toEqual(name === "plain" ? ["hw/gemm_relu_add.ts"] : ["-"]);
    }
    expect(await readFile(join(dir, "plain-files", "hw", "gemm_relu_add.ts"), "utf8")).toBe("export const a = 1;\n".repeat(100));
    await symlink("/etc/passwd", join(dir, "hw", "trace_submission.ts"));
    execFileSync("zip", ["-q", "-r", "--symlinks", join(dir, "link.zip"), "hw"], { cwd: dir });
    await mkdir(join(dir, "link-files"));
    await expect(extractHandin(join(dir, "link.zip"), join(dir, "link-files"))).rejects.toThrow('link.zip: entry "hw/trace_submission.ts" is a symbolic link');
  });

  it("refuses a path given twice", async () => {
    const zip = writeZip([
      { name: "a.ts", data: text("1") },
      { name: "./a.ts", data: text("2") },
    ]);
    await expect(extract("twice", zip)).rejects.toThrow("twice.zip holds a.ts twice");
  });
});

describe("locating the student files", () => {
  it("takes the top level first, else a single folder, else explains", async () => {
    const dir = await freshDir("locate");
    await mkdir(join(dir, "a", "hw"), { recursive: true });
    await writeFile(join(dir, "a", "hw", "trace_submission.ts"), "");
    await writeFile(join(dir, "a", "trace_submission.ts"), "");
    expect(await locateSubmissionFiles(join(dir, "a"), ["gemm_relu_add.ts", "trace_submission.ts"], "a")).toBe(join(dir, "a"));
    await rm(join(dir, "a", "trace_submission.ts"));
    expect(await locateSubmissionFiles(join(dir, "a"), ["trace_submission.ts"], "a")).toBe(join(dir, "a", "hw"));
    await mkdir(join(dir, "a", "other"));
    await expect(locateSubmissionFiles(join(dir, "a"), ["trace_submission.ts"], "a")).rejects.toThrow(
      "a: none of trace_submission.ts at its top level or inside a single folder (it has: hw/, other/)",
    );
    await mkdir(join(dir, "empty"));
    await expect(locateSubmissionFiles(join(dir, "empty"), ["x.ts"], "empty")).rejects.toThrow("(it is empty)");
  });
});

describe("CSV", () => {
  it("quotes fields with commas, quotes, line breaks or outer spaces", () => {
    expect(["plain", "a,b", 'say "hi"', "two\nlines", " padded", 2.5, undefined].map(csvField)).toEqual([
      "plain",
      '"a,b"',
      '"say ""hi"""',
      '"two\nlines"',
      '" padded"',
      "2.5",
      "",
    ]);
    const rows = [
      ["a", 'b "c"', "d,e"],
      ["1\r\n2", "", "x"],
    ];
    expect(parseCsv(toCsv(rows))).toEqual(rows);
  });
});

describe("tessera-grade batch (command line)", () => {
  async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
    const io = memoryIO();
    const code = await runGradeCli(["batch", ...args], io);
    return { code, out: io.out.join(""), err: io.err.join("") };
  }

  it("rejects a bad command line with exit code 2", async () => {
    const dir = await freshDir("cli-usage");
    const file = join(dir, "file.txt");
    await writeFile(file, "");
    expect(await cli([])).toMatchObject({ code: 2, err: expect.stringContaining("batch needs the folder of submissions") });
    expect(await cli([join(dir, "missing"), "--out", dir])).toMatchObject({ code: 2, err: expect.stringContaining("no such folder of submissions") });
    expect(await cli([dir])).toMatchObject({ code: 2, err: expect.stringContaining("batch needs --out OUT") });
    expect(await cli([dir, "--out", file])).toMatchObject({ code: 2, err: expect.stringContaining("is a file; give a folder") });
    expect(await cli([dir, "--out", dir])).toMatchObject({ code: 2, err: expect.stringContaining("must not be DIR itself") });
    expect(await cli([dir, "--out", join(dir, "o"), "--timeout", "soon"])).toMatchObject({
      code: 2,
      err: expect.stringContaining('--timeout must be an integer from 1 to 86400, got "soon"'),
    });
    expect(await cli([dir, "--out", join(dir, "o"), "--color"])).toMatchObject({ code: 2, err: expect.stringContaining("--color") });
    expect(await cli([dir, "--out", join(dir, "o"), "--shard", "3/2"])).toMatchObject({
      code: 2,
      err: expect.stringContaining('--shard must be I/N with 1 ≤ I ≤ N (e.g. 2/4), got "3/2"'),
    });
    expect(await cli([dir, "--out", join(dir, "o"), "--shard", "0/2"])).toMatchObject({ code: 2, err: expect.stringContaining("--shard must be I/N") });
    expect(await cli([dir, "--out", join(dir, "o"), "--jobs", "0"])).toMatchObject({
      code: 2,
      err: expect.stringContaining('--jobs must be an integer from 1 to 256, got "0"'),
    });
    expect(await cli([dir, "--out", join(dir, "o"), "--merge", "--shard", "1/2"])).toMatchObject({
      code: 2,
      err: expect.stringContaining("--merge grades nothing"),
    });
  });

  it("finishes with exit code 0 when submissions fail, and says where the results are", async () => {
    const dir = await freshDir("cli-broken");
    await writeFile(join(dir, "a.zip"), "no zip");
    await writeFile(join(dir, "b.zip"), zipWithEntryName("/abs.ts", text("x")));
    const out = join(scratch, "cli-broken-out");
    const run = await cli([dir, "--out", out, "--no-gpu", "--jobs", "1"]);
    expect(run.code).toBe(0);
    expect(run.out).toMatch(
      /\nBatch finished in \d+\.\d s: 2 submissions, 0 graded, 2 errors, 1 at a time \(in-process\)\. Results in .*cli-broken-out\/<submission>\/\{results\.json,report\.txt\}; summary in .*cli-broken-out\/summary\.csv, histogram in .*cli-broken-out\/histogram\.svg, pass rates in .*cli-broken-out\/pass-rates\.md\.\n$/,
    );
    expect(run.err).toContain("[2/2] b: error");
    expect(run.out).toMatch(/^Pass rates per task \(2 submissions; ungraded ones count as 0 points\)\n\n\| Task \|/);
    expect(parseCsv(await readFile(join(out, "summary.csv"), "utf8")).map((r) => r[1])).toEqual(["status", "error", "error"]);

    // Again: both have results in OUT, so nothing is graded; --force grades them again.
    const again = await cli([dir, "--out", out, "--no-gpu", "--jobs", "1"]);
    expect(again.out).toMatch(/2 submissions, 0 graded, 2 errors; 2 already graded in OUT were skipped \(--force grades them again\)\. Results/);
    expect(again.err).not.toContain("[1/");
    const forced = await cli([dir, "--out", out, "--no-gpu", "--jobs", "1", "--force"]);
    expect(forced.err).toContain("[2/2] b: error");
    expect(forced.out).not.toContain("skipped");

    // --merge rebuilds the reports from OUT, and fails naming a submission without results.
    const merged = await cli([dir, "--out", out, "--merge"]);
    expect(merged).toMatchObject({
      code: 0,
      err: "",
      out: expect.stringMatching(/\nMerged 2 submissions\. summary in .*summary\.csv, histogram in .*histogram\.svg, pass rates in .*pass-rates\.md\.\n$/),
    });
    await rm(join(out, "a", "outcome.json"));
    const incomplete = await cli([dir, "--out", out, "--merge"]);
    expect(incomplete).toMatchObject({ code: 1, err: `1 submission of ${dir} without results in ${out}: a\n` });
    expect(parseCsv(await readFile(join(out, "summary.csv"), "utf8")).map((r) => r[0])).toEqual(["submission", "b"]);
  });

  it("fails with exit code 1 when it cannot write its output", async () => {
    const dir = await freshDir("cli-unwritable");
    await writeFile(join(dir, "blocker"), "");
    const run = await cli([dir, "--out", join(dir, "blocker", "out"), "--no-gpu"]);
    expect(run.code).toBe(1);
    expect(run.err).toMatch(/^No GPU[^\n]*\ntessera-grade batch: the batch failed: ENOTDIR: not a directory, mkdir .*\n$/);
  });
});
