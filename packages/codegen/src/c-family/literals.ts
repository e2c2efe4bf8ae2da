/** C spellings of constants, shared by the C and CUDA generators: `0.000000e+00f` for float32 (TVM's style), exact where needed. */

/** `1.5e+0` → `1.500000e+00`: C's `%e` always writes at least two exponent digits. */
function scientific(value: number, digits: number): string {
  return value.toExponential(digits).replace(/e([+-])(\d)$/, "e$10$2");
}

function nonFinite(value: number, float: boolean): string | undefined {
  // Bit patterns rather than macros (INFINITY needs <math.h> on the device side).
  if (Number.isNaN(value)) return float ? "__int_as_float(0x7fc00000)" : "__longlong_as_double(0x7ff8000000000000LL)";
  if (value === Infinity) return float ? "__int_as_float(0x7f800000)" : "__longlong_as_double(0x7ff0000000000000LL)";
  if (value === -Infinity) return float ? "__int_as_float(0xff800000)" : "__longlong_as_double(0xfff0000000000000LL)";
  return undefined;
}

/** Literals already written (kernels repeat a few constants, such as the zero of every accumulator). */
const float32Literals = new Map<number, string>();

/** A float32 literal: six decimals when they round-trip to the same float32, else nine significant digits. */
export function float32Literal(value: number): string {
  // Object.is keeps -0 apart from 0 (Map keys would not).
  if (Object.is(value, -0)) return writeFloat32Literal(value);
  let text = float32Literals.get(value);
  if (text === undefined) {
    text = writeFloat32Literal(value);
    if (float32Literals.size < 4096) float32Literals.set(value, text);
  }
  return text;
}

function writeFloat32Literal(value: number): string {
  const special = nonFinite(value, true);
  if (special !== undefined) return special;
  const f = Math.fround(value);
  const short = scientific(f, 6);
  const text = Math.fround(Number(short)) === f ? short : scientific(f, 8);
  return `${text}f`;
}

/** A float64 literal with enough digits to round-trip. */
export function float64Literal(value: number): string {
  const special = nonFinite(value, false);
  if (special !== undefined) return special;
  const short = scientific(value, 6);
  return Number(short) === value ? short : scientific(value, 16);
}

/** An integer literal of the given C type (`5`, `(long long)5`, `5u`). */
export function intLiteral(value: number, cType: string): string {
  if (cType === "bool") return value !== 0 ? "true" : "false";
  if (cType === "int") return String(value);
  if (cType === "long long") return `${value}LL`;
  if (cType === "unsigned long long") return `${value}ULL`;
  if (cType === "unsigned int") return `${value}u`;
  return `((${cType})${value})`;
}
