/**
 * What a reader follows from one declaration to the next: starting at an entry (a function, a class, an
 * `operation({...})` or `consume(...)` entry), every name it uses is followed to the declaration the TypeScript
 * checker resolves it to (through imports, re-exports and barrels), and that declaration is read in turn; the
 * files holding every declaration read are the files followed. Unlike the import graphs of import-graph.ts, a
 * file is not followed whole: reaching `listHouses` in a file of twenty functions reads that function, not the
 * other nineteen nor their imports. Types are followed as values are (a reader looks up `HousesContext` too); a
 * function named as a type (`ReturnType<typeof communityModels>`) is an object type, read member by member.
 * Packages outside the repository end the walk.
 */
import { join, relative } from 'node:path';
import ts from 'typescript';
import { productionFiles, productionProgram, ROOT } from './import-graph';

/** Where a walk starts: a top-level declaration by name, or the call whose object argument has `key: value`. */
export type Entry = { file: string; name: string } | { file: string; call: { key: string; value: string } };

export interface DeclarationWalker {
  /** The repository files holding every declaration reached from `entries` (the entries' own files included). */
  filesFollowed(entries: readonly Entry[]): Set<string>;
}

export function declarationWalker(files: readonly string[] = productionFiles()): DeclarationWalker {
  const program = productionProgram(files);
  const checker = program.getTypeChecker();
  const production = new Set(files);
  const repoFile = (node: ts.Node): string | undefined => {
    const file = relative(ROOT, node.getSourceFile().fileName);
    return production.has(file) ? file : undefined;
  };

  const source = (file: string): ts.SourceFile => {
    const found = program.getSourceFile(join(ROOT, file));
    if (!found) throw new Error(`declaration-graph: ${file} is not a production file`);
    return found;
  };

  const find = (entry: Entry): ts.Node => {
    let match: ts.Node | undefined;
    const visit = (node: ts.Node): void => {
      if (match) return;
      if ('name' in entry) {
        if (
          (ts.isFunctionDeclaration(node) || ts.isClassDeclaration(node) || ts.isVariableDeclaration(node) || ts.isInterfaceDeclaration(node)) &&
          node.name &&
          ts.isIdentifier(node.name) &&
          node.name.text === entry.name
        ) {
          match = node;
          return;
        }
      } else if (ts.isCallExpression(node)) {
        const argument = node.arguments[node.arguments.length - 1];
        if (
          argument &&
          ts.isObjectLiteralExpression(argument) &&
          argument.properties.some(
            (p) =>
              ts.isPropertyAssignment(p) &&
              p.name.getText() === entry.call.key &&
              ts.isStringLiteralLike(p.initializer) &&
              p.initializer.text === entry.call.value,
          )
        ) {
          match = node;
          return;
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source(entry.file));
    if (!match) throw new Error(`declaration-graph: no entry ${JSON.stringify(entry)}`);
    return match;
  };

  /**
   * What is read of a declaration once a name leads to it. A class is read as far as making one goes (heritage,
   * constructor, fields); its methods are read when something calls them by name. An interface or an object type
   * is read as far as its name and what it extends; each member when something uses it by name (`ctx.models`
   * reads `models`, not every other member of the context).
   */
  const readable = (declaration: ts.Node): ts.Node[] => {
    if (ts.isBindingElement(declaration)) {
      let node: ts.Node = declaration;
      while (!ts.isVariableDeclaration(node) && !ts.isParameter(node) && node.parent) node = node.parent;
      return [node];
    }
    if (ts.isClassDeclaration(declaration) || ts.isClassExpression(declaration)) {
      return [...(declaration.heritageClauses ?? []), ...declaration.members.filter((m) => ts.isConstructorDeclaration(m) || ts.isPropertyDeclaration(m))];
    }
    // An interface or object type likewise: its name, type parameters and what it extends; a member when used.
    if (ts.isInterfaceDeclaration(declaration)) return [...(declaration.typeParameters ?? []), ...(declaration.heritageClauses ?? [])];
    if (ts.isTypeAliasDeclaration(declaration) && ts.isTypeLiteralNode(declaration.type)) return [...(declaration.typeParameters ?? [])];
    if (ts.isSourceFile(declaration) || ts.isModuleDeclaration(declaration)) return [];
    return [declaration];
  };

  return {
    filesFollowed(entries) {
      const read = new Set<ts.Node>();
      const followed = new Set<string>();
      const queue: ts.Node[] = [];
      const enqueue = (node: ts.Node): void => {
        if (read.has(node)) return;
        const file = repoFile(node);
        if (!file) return;
        read.add(node);
        followed.add(file);
        queue.push(node);
      };
      for (const entry of entries) enqueue(find(entry));
      while (queue.length > 0) {
        const node = queue.pop()!;
        const visit = (child: ts.Node): void => {
          if (ts.isIdentifier(child) || ts.isPrivateIdentifier(child)) {
            let symbol = checker.getSymbolAtLocation(child);
            if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
            // `ReturnType<typeof communityModels>` names an object type: like an interface, its members are read
            // when something uses them by name (the checker resolves `ctx.models.comments` to that property of the
            // returned object), not the whole function that makes it.
            const asType = ts.isTypeQueryNode(child.parent);
            for (const declaration of symbol?.declarations ?? []) {
              if (declaration === child.parent) continue;
              const file = repoFile(declaration);
              if (file) followed.add(file);
              if (asType && ts.isFunctionDeclaration(declaration)) continue;
              for (const part of readable(declaration)) enqueue(part);
            }
          }
          ts.forEachChild(child, visit);
        };
        ts.forEachChild(node, visit);
      }
      return followed;
    },
  };
}
