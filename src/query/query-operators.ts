/** What an operator takes, which decides how its operand is checked. */
export type OperandKind =
  | 'value' // a value compared with the field: $eq $ne $gt $gte $lt $lte
  | 'values' // an array of them: $in $nin $all
  | 'boolean' // $exists
  | 'count' // a non-negative integer: $size
  | 'regex' // a pattern, bounded in length and cost: $regex
  | 'regexOptions' // the flags of $regex: $options
  | 'condition' // operators negated: $not
  | 'elements' // conditions on array elements: $elemMatch
  | 'filters'; // an array of filters: $and $or $nor

/**
 * Every operator a client may use, and what it takes. The one table that the filter sanitizer, the
 * query-string parser and the documentation read: an operator not here (`$where`, `$expr`,
 * `$function`, `$text`, `$lookup`...) is refused wherever it appears.
 */
export const QUERY_OPERATORS: Readonly<Record<string, OperandKind>> = Object.freeze({
  $eq: 'value',
  $ne: 'value',
  $gt: 'value',
  $gte: 'value',
  $lt: 'value',
  $lte: 'value',
  $in: 'values',
  $nin: 'values',
  $all: 'values',
  $exists: 'boolean',
  $size: 'count',
  $regex: 'regex',
  $options: 'regexOptions',
  $not: 'condition',
  $elemMatch: 'elements',
  $and: 'filters',
  $or: 'filters',
  $nor: 'filters',
});

/** The operators written `field[op]=value` in a query string: those on one field that take plain values. */
export const QUERY_STRING_OPERATORS: ReadonlySet<string> = new Set(
  Object.entries(QUERY_OPERATORS)
    .filter(([, kind]) => !['condition', 'elements', 'filters'].includes(kind))
    .map(([operator]) => operator),
);
