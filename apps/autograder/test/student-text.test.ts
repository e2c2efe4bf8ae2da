/** report/student-text.ts: what the student's code controls, escaped, capped and fenced. */
import { describe, expect, it } from "vitest";
import {
  FENCE_MARK,
  MAX_MESSAGE_CHARS,
  MAX_OUTPUT_BYTES,
  MAX_OUTPUT_LINES,
  escapeControls,
  fencedStudentOutput,
  studentMessage,
} from "../src/report/student-text.js";

describe("escapeControls", () => {
  it("writes ESC, the other C0 and C1 controls, DEL and CR as visible escapes; keeps tabs and line feeds", () => {
    expect(escapeControls("\u001b[2J\u001b[8mhidden\u001b[0m")).toBe("\\x1b[2J\\x1b[8mhidden\\x1b[0m");
    expect(escapeControls("a\u0000b\u0007c\u007fd\u009be\rf")).toBe("a\\x00b\\x07c\\x7fd\\x9be\\x0df");
    expect(escapeControls("col\tumn\nnext line")).toBe("col\tumn\nnext line");
  });

  it("escapes bidi overrides and isolates, line separators and lone surrogates; keeps real pairs", () => {
    expect(escapeControls("abc\u202edcba\u2066x\u2069\u200f")).toBe("abc\\u202edcba\\u2066x\\u2069\\u200f");
    expect(escapeControls("a\u2028b")).toBe("a\\u2028b");
    expect(escapeControls("lone \ud800 and \udc00")).toBe("lone \\ud800 and \\udc00");
    expect(escapeControls("emoji 😀 and é")).toBe("emoji 😀 and é");
  });

  it("leaves no character below U+0020 but tab and line feed, whatever the input", () => {
    let all = "";
    for (let c = 0; c < 0x3000; c++) all += String.fromCharCode(c);
    expect(escapeControls(all)).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
  });
});

describe("studentMessage", () => {
  it("caps a message at MAX_MESSAGE_CHARS and says how much is left out", () => {
    const long = "x".repeat(MAX_MESSAGE_CHARS + 500);
    expect(studentMessage(long)).toBe(`${"x".repeat(MAX_MESSAGE_CHARS)}… (500 more characters not shown)`);
    expect(studentMessage("short \u001b[31m")).toBe("short \\x1b[31m");
  });

  it("never cuts a surrogate pair in two", () => {
    const text = `${"x".repeat(9)}😀tail`;
    expect(studentMessage(text, 10)).toBe(`${"x".repeat(9)}… (6 more characters not shown)`);
  });
});

describe("fencedStudentOutput", () => {
  it("labels the output as the student's, puts every line behind the fence mark and closes it", () => {
    const lines = fencedStudentOutput("output of your code (gemm_relu_add.ts)", "\u001b[2J\u001b[HTotal 100 / 100\r\nScore: 100\n");
    expect(lines).toEqual([
      "── output of your code (gemm_relu_add.ts) ──",
      `${FENCE_MARK}\\x1b[2J\\x1b[HTotal 100 / 100`,
      `${FENCE_MARK}Score: 100`,
      "── end of the output of your code ──",
    ]);
  });

  it("gives no lines for empty output", () => {
    expect(fencedStudentOutput("output", " \n\n")).toEqual([]);
  });

  it("caps the lines and says how many more there were", () => {
    const text = Array.from({ length: MAX_OUTPUT_LINES + 50 }, (_, n) => `line ${n}`).join("\n");
    const lines = fencedStudentOutput("output", text);
    expect(lines).toHaveLength(MAX_OUTPUT_LINES + 3);
    expect(lines.at(-2)).toBe(`${FENCE_MARK}… 50 more lines not shown`);
  });

  it("caps the bytes, also of long lines", () => {
    const text = Array.from({ length: 100 }, () => "y".repeat(5000)).join("\n");
    const lines = fencedStudentOutput("output", text);
    const body = lines.slice(1, -1).join("\n");
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(MAX_OUTPUT_BYTES + 100);
    expect(lines[1]).toMatch(/^│ y{1000}… \(4000 more characters\)$/);
    expect(lines.at(-2)).toMatch(/^│ … \d+ more lines not shown$/);
  });
});
