import pluralize from 'pluralize';

/** `BlogPost` → `blog-post`, `HTTPLog` → `http-log`. */
export function kebabCase(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .replace(/([A-Z])([A-Z][a-z])/g, '$1-$2')
    .replace(/[\s_]+/g, '-')
    .toLowerCase();
}

/** `company` → `companies`, `blog-post` → `blog-posts` (pluralises the last word only). */
export function pluralPath(path: string): string {
  const cut = path.lastIndexOf('-') + 1;
  return path.slice(0, cut) + pluralize(path.slice(cut));
}

/** Path parameter name for a resource path: `company` → `company_id`, `blog-post` → `blog_post_id`. */
export function idParamName(path: string): string {
  return `${path.replace(/[^a-zA-Z0-9]+/g, '_')}_id`;
}

/** `owner` → `Owner`, `co_owner` → `CoOwner`. */
export function pascalCase(name: string): string {
  return name
    .split(/[^a-zA-Z0-9]+/)
    .filter(Boolean)
    .map((part) => part[0].toUpperCase() + part.slice(1))
    .join('');
}

/** `an` for `Entrepreneur`, `a` for `Company`: by the first letter, which is right for nearly every model name. */
export function article(name: string): string {
  return /^[AEIOU]/i.test(name) ? 'an' : 'a';
}
