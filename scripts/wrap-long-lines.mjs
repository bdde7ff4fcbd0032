/**
 * Wraps what Prettier leaves over the line limit of ESLint's max-len (160): comment lines and string literals.
 *
 *   npx prettier --write . && node scripts/wrap-long-lines.mjs && npx prettier --write .   (twice if ESLint still finds some)
 *   node scripts/wrap-long-lines.mjs src/a.ts test/b.ts                                     (some files only)
 *
 * Comments: a line over the limit is cut at its last space before it (outside a `code span` where it can). The
 * rest joins the next line when that line goes on with the same prose, else gets a line of its own with the same
 * prefix (`//`, ` * ` and its hanging indent), the two lines then balanced. A one-line block comment becomes a block.
 *
 * Strings: on a line over the limit, its longest one-line string or template literal becomes a concatenation of
 * pieces cut after a space (`'... ' + '...'`, the same value), which Prettier then lays out. Tagged templates,
 * property names, module names and literal types are left alone, and so is a template whose spaces are all inside
 * `${...}`: ESLint names those, to be split by hand.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import ts from 'typescript';

const LIMIT = 160;

/** The spaces of `text` between `from` and `to`, preferably those outside a backtick code span. */
function spacesWithin(text, from, to) {
  const all = [];
  const outside = [];
  let inCode = false;
  for (let i = 0; i < text.length && i <= to; i += 1) {
    if (text[i] === '`') inCode = !inCode;
    if (text[i] === ' ' && i > from) {
      all.push(i);
      if (!inCode) outside.push(i);
    }
  }
  return outside.length > 0 ? outside : all;
}

/** A comment line: its prefix (indent, `//` or `*`, the spaces after it) and its text; undefined for other lines. */
function commentLine(line) {
  const match = /^(\s*(?:\/\/|\*(?!\/))\s*)(\S.*)$/.exec(line);
  return match ? { prefix: match[1], text: match[2] } : undefined;
}

/** Whether `next` goes on with the prose of a comment line of this prefix (not a tag, a list item, a table row, a code fence, the end). */
function continues(next, prefix) {
  const line = commentLine(next ?? '');
  if (!line || line.prefix !== prefix) return false;
  return !/^(@|[-*+] |\d+[.)] |\||```|<)/.test(line.text) && !/\*\/\s*$/.test(line.text);
}

function wrapComments(source) {
  const lines = source.split('\n');
  for (let index = 0; index < lines.length; index += 1) {
    const line = lines[index];
    if (line.length <= LIMIT) continue;
    const block = /^(\s*)\/\*\*\s+(.*\S)\s*\*\/\s*$/.exec(line);
    if (block) {
      // The next turn of the loop wraps its text line.
      lines.splice(index, 1, `${block[1]}/**`, `${block[1]} * ${block[2]}`, `${block[1]} */`);
      continue;
    }
    const comment = commentLine(line);
    if (!comment) continue;
    const from = comment.prefix.length;
    const spaces = spacesWithin(line, from, LIMIT);
    if (spaces.length === 0) continue;
    if (continues(lines[index + 1], comment.prefix)) {
      const cut = spaces[spaces.length - 1];
      lines.splice(index, 2, line.slice(0, cut), `${comment.prefix}${line.slice(cut + 1)} ${commentLine(lines[index + 1]).text}`);
    } else {
      // Two lines of about the same length rather than a full one and a word or two.
      const middle = from + (line.length - from) / 2;
      const cut = spaces.reduce((best, space) => (Math.abs(space - middle) < Math.abs(best - middle) ? space : best));
      lines.splice(index, 1, line.slice(0, cut), `${comment.prefix}${line.slice(cut + 1)}`);
    }
  }
  return lines.join('\n');
}

/** Whether a literal may become a concatenation where it stands. */
function splittable(node) {
  const parent = node.parent;
  if (ts.isTaggedTemplateExpression(parent) || ts.isLiteralTypeNode(parent) || ts.isModuleDeclaration(parent)) return false;
  if (ts.isImportDeclaration(parent) || ts.isExportDeclaration(parent) || ts.isExternalModuleReference(parent)) return false;
  const named = ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent) || ts.isMethodDeclaration(parent) || ts.isEnumMember(parent);
  if (named && parent.name === node) return false;
  return !ts.isExpressionStatement(parent); // a directive ('use strict')
}

/** Where a literal's source text (quotes included) may be cut: after a space, outside `${...}`, not after a backslash. */
function cutPoints(raw) {
  const template = raw[0] === '`';
  const points = [];
  let depth = 0;
  for (let i = 1; i < raw.length - 1; i += 1) {
    const char = raw[i];
    if (char === '\\') i += 1;
    else if (template && char === '$' && raw[i + 1] === '{') depth += 1;
    else if (template && char === '}' && depth > 0) depth -= 1;
    else if (char === ' ' && depth === 0) points.push(i + 1);
  }
  return points;
}

/** The literal as pieces joined with `+`, in parentheses (Prettier drops the needless ones): the first of `first` characters at most, the others `width`. */
function pieces(raw, first, width) {
  const quote = raw[0];
  const points = cutPoints(raw);
  const parts = [];
  let start = 1;
  for (let room = first; raw.length - 1 - start > room; room = width) {
    const within = points.filter((point) => point > start && point - start <= room);
    const cut = within.length > 0 ? within[within.length - 1] : points.find((point) => point > start);
    if (cut === undefined || cut >= raw.length - 1) break;
    parts.push(raw.slice(start, cut));
    start = cut;
  }
  parts.push(raw.slice(start, raw.length - 1));
  return parts.length > 1 ? `(${parts.map((part) => quote + part + quote).join(' + ')})` : undefined;
}

function splitStrings(file, source) {
  const kind = /\.[cm]?ts$/.test(file) ? ts.ScriptKind.TS : ts.ScriptKind.JS;
  const tree = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true, kind);
  const starts = tree.getLineStarts();
  const lengthOf = (line) => (line + 1 < starts.length ? starts[line + 1] - 1 : source.length) - starts[line];
  const lineOf = (position) => tree.getLineAndCharacterOfPosition(position).line;
  /** Per line over the limit, its longest literal that starts and ends on it and may be split. */
  const longest = new Map();
  const visit = (node) => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateExpression(node)) {
      const line = lineOf(node.getStart(tree));
      const known = longest.get(line);
      const length = (literal) => literal.getEnd() - literal.getStart(tree);
      if (lengthOf(line) > LIMIT && lineOf(node.getEnd()) === line && splittable(node) && (!known || length(node) > length(known))) longest.set(line, node);
      return; // a template's spans are inside it
    }
    ts.forEachChild(node, visit);
  };
  visit(tree);
  let result = source;
  // From the end of the file up, so that the positions before each edit stay right.
  for (const [line, node] of [...longest].sort((a, b) => b[0] - a[0])) {
    const start = node.getStart(tree);
    const raw = source.slice(start, node.getEnd());
    const column = start - starts[line];
    const indent = /^\s*/.exec(source.slice(starts[line]))[0].length;
    const width = Math.max(40, LIMIT - indent - 12);
    // Past the limit itself, its first piece ends before it; else, when it is most of the line, enough is cut off it for the line to fit.
    const overflow = lengthOf(line) - LIMIT;
    const first = raw.length + column > LIMIT ? Math.max(20, LIMIT - column - 6) : raw.length >= 40 ? Math.max(20, raw.length - overflow - 6) : 0;
    const split = first > 0 ? pieces(raw, first, width) : undefined;
    if (split) result = result.slice(0, start) + split + result.slice(node.getEnd());
  }
  return result;
}

const files =
  process.argv.length > 2
    ? process.argv.slice(2)
    : execFileSync('git', ['ls-files', '*.ts', '*.js', '*.cjs', '*.mjs'], { encoding: 'utf8' }).split('\n').filter(Boolean);
let changed = 0;
for (const file of files) {
  const source = readFileSync(file, 'utf8');
  const result = splitStrings(file, wrapComments(source));
  if (result !== source) {
    writeFileSync(file, result);
    changed += 1;
    console.log(file);
  }
}
console.log(`${changed} file(s) changed: lay them out with Prettier (npm run format), then check with ESLint (npm run lint)`);
