/**
 * Rows under a header, each column as wide as its widest cell and two spaces apart; the last column
 * is not padded, so no line ends in spaces. The header is upper case, as `gh` and `kubectl` print it.
 */
export function formatTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const all = [header.map((h) => h.toUpperCase()), ...rows];
  const widths = header.map((_, col) => Math.max(...all.map((row) => (row[col] ?? '').length)));
  return all
    .map((row) =>
      row
        .map((cell, col) => (col === row.length - 1 ? cell : cell.padEnd(widths[col])))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}
