/**
 * The raw text of a string option. cac (through mri) turns numeric-looking values into numbers,
 * so `--api-key 0123` would arrive as `123` and `--message ""` as `0`; secrets, paths and
 * messages are read back from argv instead.
 */
export function rawOption(argv: readonly string[], name: string): string | undefined {
  let value: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--") break;
    if (arg === `--${name}`) {
      const next = argv[i + 1];
      if (next !== undefined && !next.startsWith("-")) {
        value = next;
        i++;
      }
    } else if (arg?.startsWith(`--${name}=`)) {
      value = arg.slice(name.length + 3);
    }
  }
  return value;
}
