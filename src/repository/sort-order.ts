/**
 * `sort` with `_id` after its keys, where it does not name `_id` already: a tie-breaker, so that
 * documents with equal sort keys come in one order, page after page. A new object; `sort` is left as it is.
 */
export function withIdLast(sort: Readonly<Record<string, 1 | -1>> | undefined): Record<string, 1 | -1> {
  const order: Record<string, 1 | -1> = Object.assign({}, sort);
  if (!order._id) order._id = 1;
  return order;
}
