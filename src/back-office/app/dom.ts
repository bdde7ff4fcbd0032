/** A few DOM helpers: the app builds its pages from plain elements, without a framework. */

type Child = Node | string | number | false | null | undefined | Child[];
type Attributes = Record<string, string | number | boolean | null | undefined | EventListener>;

/**
 * `h('button', { type: 'button', onclick: save }, 'Save')`: an element with its attributes
 * (`on*` functions become listeners; `true` sets an empty attribute; `false`, `null` and
 * `undefined` set nothing) and its children (strings become text; falsy children are skipped).
 */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attributes: Attributes = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === false || value === null || value === undefined) continue;
    if (typeof value === 'function') element.addEventListener(name.slice(2), value);
    else if (name === 'value' && 'value' in element) (element as HTMLInputElement).value = String(value);
    else element.setAttribute(name, value === true ? '' : String(value));
  }
  append(element, children);
  return element;
}

/** Appends children as `h` does. */
export function append(parent: Node, children: Child[]): void {
  for (const child of children) {
    if (child === false || child === null || child === undefined) continue;
    if (Array.isArray(child)) append(parent, child);
    else parent.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replaces every child of `parent`. */
export function replace(parent: Node, ...children: Child[]): void {
  while (parent.firstChild) parent.removeChild(parent.firstChild);
  append(parent, children);
}

let counter = 0;
/** A document-unique id for `for`/`aria-*` references: `prefix-7`. */
export function uid(prefix: string): string {
  counter += 1;
  return `${prefix}-${counter}`;
}
