/**
 * The import graph of the production code (shared/src, events/src, services/*\/src), type-only imports included, as the
 * TypeScript compiler's pre-processor reads them: `import`, `import type`, `export … from` and `import('…')`.
 * `@binzip/shared` and its subpaths resolve to shared/src's index files, `@binzip/events` to events/src's; packages outside the repository are left
 * out. Used by `npm run check:cycles` (part of `npm run lint`) and `npm run count:structure`.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

export const ROOT = resolve(__dirname, '..', '..');

/** Every .ts file under `dir` (repository-relative), test folders and declaration files left out. */
export function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (abs: string): void => {
    if (!existsSync(abs)) return;
    for (const name of readdirSync(abs)) {
      const path = join(abs, name);
      if (statSync(path).isDirectory()) {
        if (name !== 'node_modules' && name !== 'dist' && name !== 'test') walk(path);
      } else if (name.endsWith('.ts') && !name.endsWith('.d.ts') && !name.endsWith('.test.ts')) {
        out.push(relative(ROOT, path));
      }
    }
  };
  walk(join(ROOT, dir));
  return out.sort();
}

/** The production files: the shared library, the producers' event contracts and every service's src/. */
export function productionFiles(): string[] {
  const services = readdirSync(join(ROOT, 'services')).filter((name) => existsSync(join(ROOT, 'services', name, 'src')));
  return [...sourceFiles('shared/src'), ...sourceFiles('events/src'), ...services.flatMap((name) => sourceFiles(`services/${name}/src`))];
}

function resolveFile(base: string): string | undefined {
  for (const candidate of [`${base}.ts`, join(base, 'index.ts'), base]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return undefined;
}

/** The repository file an import specifier names, or undefined for a package outside the repository. */
export function resolveImport(from: string, specifier: string): string | undefined {
  let abs: string | undefined;
  if (specifier.startsWith('.')) abs = resolveFile(resolve(ROOT, dirname(from), specifier));
  else if (specifier === '@binzip/shared') abs = resolveFile(join(ROOT, 'shared/src'));
  else if (specifier.startsWith('@binzip/shared/')) abs = resolveFile(join(ROOT, 'shared/src', specifier.slice('@binzip/shared/'.length)));
  else if (specifier === '@binzip/events') abs = resolveFile(join(ROOT, 'events/src'));
  return abs ? relative(ROOT, abs) : undefined;
}

/** file -> the repository files it imports (type-only imports included). */
export function importGraph(files: readonly string[] = productionFiles()): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const info = ts.preProcessFile(readFileSync(join(ROOT, file), 'utf8'), true, true);
    const targets = new Set<string>();
    for (const ref of info.importedFiles) {
      const target = resolveImport(file, ref.fileName);
      if (target && target !== file) targets.add(target);
    }
    graph.set(file, [...targets].sort());
  }
  return graph;
}

/** The strongly connected components with more than one file (Tarjan): each is at least one import cycle. */
export function cycles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const indices = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string): void => {
    indices.set(node, index);
    low.set(node, index);
    index += 1;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!indices.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, indices.get(next)!));
      }
    }
    if (low.get(node) === indices.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const node of graph.keys()) if (!indices.has(node)) visit(node);
  return found;
}

/** Every file reachable from `entry` (itself included): what a reader follows from it. */
export function reachable(graph: Map<string, string[]>, entry: string): Set<string> {
  const seen = new Set<string>();
  const queue = [entry];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    for (const next of graph.get(file) ?? []) queue.push(next);
  }
  return seen;
}

/**
 * The production files as one TypeScript program, `@binzip/shared` and `@binzip/events` resolved to their sources
 * (not their build), for the checker to resolve names across packages (`nameGraph`, declaration-graph.ts).
 */
export function productionProgram(files: readonly string[] = productionFiles()): ts.Program {
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.CommonJS,
    moduleResolution: ts.ModuleResolutionKind.Node10,
    strict: true,
    skipLibCheck: true,
    noEmit: true,
    baseUrl: ROOT,
    paths: {
      '@binzip/shared': ['shared/src/index.ts'],
      '@binzip/shared/*': ['shared/src/*/index.ts'],
      '@binzip/events': ['events/src/index.ts'],
      '@binzip/events/*': ['events/src/*.ts'],
    },
  };
  return ts.createProgram(
    files.map((file) => join(ROOT, file)),
    options,
  );
}

/**
 * The same graph, but an import follows only the names it imports, to the files that declare them (through any
 * barrel: `import { AppError } from '@binzip/shared'` leads to shared/src/core/wire.ts, not to every file the
 * barrel re-exports). A namespace import, a side-effect import, `export *` and `import('…')` types still follow
 * the whole module. Type-only imports included. What a reader who follows each name to its definition opens.
 */
export function nameGraph(files: readonly string[] = productionFiles()): Map<string, string[]> {
  const program = productionProgram(files);
  const checker = program.getTypeChecker();
  const production = new Set(files);
  const repoFile = (node: ts.Node | undefined): string | undefined => {
    if (!node) return undefined;
    const file = relative(ROOT, node.getSourceFile().fileName);
    return production.has(file) ? file : undefined;
  };
  const moduleFile = (specifier: ts.Expression): string | undefined => {
    const symbol = checker.getSymbolAtLocation(specifier);
    return repoFile(symbol?.declarations?.[0]);
  };
  const declarationsOf = (name: ts.Node): string[] => {
    let symbol = checker.getSymbolAtLocation(name);
    if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
    return (symbol?.declarations ?? []).map((d) => repoFile(d)).filter((f): f is string => f !== undefined);
  };
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const source = program.getSourceFile(join(ROOT, file));
    if (!source) continue;
    const targets = new Set<string>();
    const add = (target: string | undefined) => {
      if (target && target !== file) targets.add(target);
    };
    for (const statement of source.statements) {
      if (ts.isImportDeclaration(statement)) {
        const clause = statement.importClause;
        if (!clause || (clause.namedBindings && ts.isNamespaceImport(clause.namedBindings))) add(moduleFile(statement.moduleSpecifier));
        if (clause?.name) declarationsOf(clause.name).forEach(add);
        if (clause?.namedBindings && ts.isNamedImports(clause.namedBindings)) {
          for (const element of clause.namedBindings.elements) declarationsOf(element.name).forEach(add);
        }
      } else if (ts.isExportDeclaration(statement) && statement.moduleSpecifier) {
        if (statement.exportClause && ts.isNamedExports(statement.exportClause)) {
          for (const element of statement.exportClause.elements) declarationsOf(element.name).forEach(add);
        } else add(moduleFile(statement.moduleSpecifier));
      } else if (ts.isImportEqualsDeclaration(statement) && ts.isExternalModuleReference(statement.moduleReference)) {
        add(moduleFile(statement.moduleReference.expression));
      }
    }
    const visit = (node: ts.Node): void => {
      if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) add(moduleFile(node.argument.literal));
      if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0]) add(moduleFile(node.arguments[0]));
      ts.forEachChild(node, visit);
    };
    visit(source);
    graph.set(file, [...targets].sort());
  }
  return graph;
}
