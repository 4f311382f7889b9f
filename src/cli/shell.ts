/** @module Text a POSIX shell reads back exactly: quoted words and `export` lines. */

// Characters no POSIX shell treats specially anywhere in a word.
const PLAIN = /^[A-Za-z0-9_@%+=:,./-]+$/;

/**
 * `value` as one shell word: unchanged when it is plain, else in single quotes, each `'` written
 * as `'\''` (inside single quotes nothing else is special: `$`, `` ` ``, `\`, `!` stay literal).
 *
 * @example
 * shellQuote("http://127.0.0.1:8787/inference/v1") // http://127.0.0.1:8787/inference/v1
 * shellQuote("it's $HOME") // 'it'\''s $HOME'
 */
export function shellQuote(value: string): string {
  return PLAIN.test(value) ? value : `'${value.replaceAll("'", "'\\''")}'`;
}

/**
 * One `export NAME=value` line per variable, each value quoted: pasted into bash, zsh or sh, or
 * run through `eval`, they set the variables for every program started from that shell.
 */
export function exportLines(variables: Readonly<Record<string, string>>): string[] {
  return Object.entries(variables).map(([name, value]) => `export ${name}=${shellQuote(value)}`);
}
