/**
 * Text the student's code controls (what it printed, its error messages and stack frames), made
 * safe to show in the grader's reports: every character that could move the cursor, clear or hide
 * text, or reorder it becomes visible escape text (ESC → `\x1b`), sizes are capped, and printed
 * output is fenced and labelled so that no line of it can pass for one of the grader's.
 */

/** Lines of one fenced output shown at most. */
export const MAX_OUTPUT_LINES = 200;
/** Bytes (UTF-8, after escaping) of one fenced output shown at most. */
export const MAX_OUTPUT_BYTES = 16 * 1024;
/** Characters of one error message or stack shown at most. */
export const MAX_MESSAGE_CHARS = 2000;
/** Characters of one printed line shown at most (a line of megabytes would take the whole budget). */
const MAX_LINE_CHARS = 1000;

/** The prefix of every fenced line: a student line can never start at column 0. */
export const FENCE_MARK = "│ ";

/**
 * C0 and C1 controls but tab and line feed, DEL, the bidi controls (U+061C, U+200E/F, U+202A–202E,
 * U+2066–2069), the Unicode line and paragraph separators, and lone surrogates.
 */
const UNSAFE =
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** `text` with every unsafe character written as its escape (`\x1b`, `\u202e`); tabs and line breaks stay. */
export function escapeControls(text: string): string {
  return text.replace(UNSAFE, (c) => {
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
  });
}

/** An error message, error name or stack from student code: escaped, and cut at `maxChars`. */
export function studentMessage(text: string, maxChars = MAX_MESSAGE_CHARS): string {
  if (text.length <= maxChars) return escapeControls(text);
  // Never cut a surrogate pair in two (the half left would be escaped as a lone surrogate).
  const cut = /[\ud800-\udbff]/.test(text.charAt(maxChars - 1)) ? maxChars - 1 : maxChars;
  return `${escapeControls(text.slice(0, cut))}… (${text.length - cut} more characters not shown)`;
}

/**
 * What a run of the student's code printed on one stream, as report lines: a header naming it as
 * the student's, every line behind FENCE_MARK, escaped, at most MAX_OUTPUT_LINES lines and
 * MAX_OUTPUT_BYTES bytes, then a closing line. `label` says which output (e.g. "output of your
 * code (schedule.ts)"). Empty output gives no lines.
 */
export function fencedStudentOutput(label: string, text: string): string[] {
  const trimmed = text.trimEnd();
  if (trimmed === "") return [];
  const lines = trimmed.split("\n");
  const shown: string[] = [];
  let bytes = 0;
  for (const raw of lines) {
    const line = FENCE_MARK + escapeControls(clipLine(raw.endsWith("\r") ? raw.slice(0, -1) : raw));
    const size = Buffer.byteLength(line) + 1;
    if (shown.length >= MAX_OUTPUT_LINES || bytes + size > MAX_OUTPUT_BYTES) break;
    shown.push(line);
    bytes += size;
  }
  const hidden = lines.length - shown.length;
  if (hidden > 0) shown.push(`${FENCE_MARK}… ${hidden} more line${hidden === 1 ? "" : "s"} not shown`);
  return [`── ${label} ──`, ...shown, `── end of the ${label.replace(/ \(.*\)$/, "")} ──`];
}

function clipLine(line: string): string {
  return line.length <= MAX_LINE_CHARS ? line : `${line.slice(0, MAX_LINE_CHARS)}… (${line.length - MAX_LINE_CHARS} more characters)`;
}
