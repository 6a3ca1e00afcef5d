// A value put into a command telform suggests (a lineage, a path, an id) is quoted for a POSIX
// shell: pasted as shown, it is one argument, whatever it holds (`;`, `$( )`, spaces, quotes).

const plain = /^[A-Za-z0-9_@%+=:,./-]+$/;

/** The value as one shell word: unchanged when it is plain, else single-quoted (`'` as `'\''`). */
export function shellQuote(value: string): string {
  if (plain.test(value)) return value;
  return `'${value.replace(/'/g, `'\\''`)}'`;
}
