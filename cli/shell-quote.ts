/** `value` as one POSIX shell word: as is when that is safe, else single-quoted. */
export function shellQuote(value: string): string {
  return /^[\w./@:=-]+$/.test(value) ? value : `'${value.replace(/'/g, "'\\''")}'`;
}
