/**
 * A client's view of an OpenAPI document: its types as openapi-typescript writes them, and code
 * that uses them compiled in memory, strict, with the TypeScript compiler.
 */
import type { OpenAPIObject } from '@nestjs/swagger';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';

/** The TypeScript of a client's types, as `npx openapi-typescript` writes them. */
export async function clientTypes(document: OpenAPIObject): Promise<string> {
  return astToString(await openapiTS(structuredClone(document) as never));
}

/** A whole program type-checked with the lib files: seconds, more on a busy machine. */
export const COMPILE_TIMEOUT = 120_000;

const COMPILER_OPTIONS: ts.CompilerOptions = {
  strict: true,
  noEmit: true,
  exactOptionalPropertyTypes: false,
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  lib: ['lib.es2022.d.ts'],
  types: [],
};

/** Compiles files held in memory (the lib files come from the disk): the diagnostics, one line each. */
export function compile(files: Record<string, string>): string[] {
  const host = ts.createCompilerHost(COMPILER_OPTIONS);
  const memory = new Map(Object.entries(files).map(([name, text]) => [`/client/${name}`, text]));
  const { getSourceFile, fileExists, readFile } = host;
  host.getSourceFile = (name, language, ...rest) =>
    memory.has(name) ? ts.createSourceFile(name, memory.get(name)!, language) : getSourceFile.call(host, name, language, ...rest);
  host.fileExists = (name) => memory.has(name) || fileExists.call(host, name);
  host.readFile = (name) => memory.get(name) ?? readFile.call(host, name);
  const { directoryExists } = host;
  host.directoryExists = (name) => name === '/client' || (directoryExists?.call(host, name) ?? false);
  const program = ts.createProgram([...memory.keys()], COMPILER_OPTIONS, host);
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => {
    const where = diagnostic.file && diagnostic.start !== undefined ? diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start) : undefined;
    const line = where && diagnostic.file ? diagnostic.file.text.split('\n')[where.line].trim() : '';
    return `${diagnostic.file?.fileName ?? ''}:${where ? where.line + 1 : '?'}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}\n    ${line}`;
  });
}

/** `const name: Type = value;` for a value sent as JSON. */
export const typed = (name: string, type: string, value: unknown) => `export const ${name}: ${type} = ${JSON.stringify(value)};`;

/** The JSON body of a route's request, in the generated types. */
export const bodyType = (path: string, method: string) =>
  `paths['${path}']['${method}']['requestBody'] extends { content: { 'application/json': infer B } } | undefined ? B : never`;

/** The query-string parameters of a route, in the generated types. */
export const queryType = (path: string, method = 'get') => `NonNullable<paths['${path}']['${method}']['parameters']['query']>`;
