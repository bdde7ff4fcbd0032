/** The values of a schema path's `enum` option: `['a', 'b']`, `{ values: [...] }` or a TypeScript enum object. */
export function enumValues(option: unknown): unknown[] | undefined {
  if (!option) return undefined;
  if (Array.isArray(option)) return option;
  const values = (option as { values?: unknown }).values;
  if (Array.isArray(values)) return values;
  return typeof option === 'object' ? Object.values(option as object) : undefined;
}
