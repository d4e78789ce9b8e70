const UNITS = [
  { unit: 'GB', bytes: 1_000_000_000 },
  { unit: 'MB', bytes: 1_000_000 },
  { unit: 'KB', bytes: 1_000 },
] as const;

/**
 * A byte count for people: "512 B", "35.0 KB", "12.4 MB". `scale` picks the unit (by default the
 * count itself), so "3.5 KB of 35.0 KB" reads in one unit instead of jumping from B to KB mid-download.
 */
export function humanSize(bytes: number, scale: number = bytes): string {
  const unit = UNITS.find((u) => scale >= u.bytes);
  return unit ? `${(bytes / unit.bytes).toFixed(1)} ${unit.unit}` : `${bytes} B`;
}
