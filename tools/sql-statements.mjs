// The SQL statements of the apps and libraries, read from their sources with the TypeScript compiler:
// each `sql('key')`…`` (and `prepared('key')`…``) with its text, its `${…}` parts worked out from the
// constants and pure helpers they name (`conversationColumns('c')`, `outboxInsert(CHAT_SCHEMA)`).
// tools/db-types.mjs prepares each on the migrated schema to type its parameters (ADR 017). A statement
// given to `queryRows`, `queryOne` or `execute` as a constant without a key is reported, so that no
// constant statement goes untyped; one built at run time (a list of `$n` as long as a batch) cannot be
// typed this way and is given as a plain string.
import { readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The functions that run a statement: the statement is their second argument. */
const RUNNERS = new Set(['queryRows', 'queryOne', 'execute']);
/** The tags that key a statement. */
const TAGS = new Set(['sql', 'prepared']);

/**
 * @typedef {{ key: string, text: string, project: string, file: string, line: number }} KeyedStatement
 * @typedef {{ file: string, line: number, text: string }} UnkeyedStatement a constant statement without a key
 * @typedef {{ params: readonly ts.ParameterDeclaration[], body: ts.ConciseBody, scope: Scope }} Closure
 * @typedef {Map<ts.Symbol, unknown>} Scope the values of a call's parameters and locals
 */

/** Nothing known at build time: a value only the running code has. */
const UNKNOWN = Symbol('unknown');

/** @param {string} dir @returns {string[]} */
function sources(dir) {
  /** @type {string[]} */
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules') out.push(...sources(path));
    } else if (/\.ts$/.test(entry.name) && !/(\.|-)spec\.ts$|\.d\.ts$/.test(entry.name)) out.push(path);
  }
  return out;
}

/** The project (`apps/chat`, `libs/messaging`) of a path from the root. @param {string} path */
const projectOf = (path) => path.split('/').slice(0, 2).join('/');

/** The apps' and libraries' sources, less tests and libs/testing. */
const projectSources = () =>
  ['apps', 'libs'].flatMap((top) =>
    readdirSync(join(root, top), { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && entry.name !== 'testing')
      .flatMap((entry) => sources(join(root, top, entry.name, 'src'))),
  );

/**
 * Every keyed statement of `files` (the apps' and libraries' sources), and every constant statement without a key.
 * @param {string[]} files absolute paths
 * @returns {{ keyed: KeyedStatement[], unkeyed: UnkeyedStatement[] }}
 */
export function readStatements(files = projectSources()) {
  const config = ts.readConfigFile(join(root, 'tsconfig.base.json'), ts.sys.readFile).config;
  const { options } = ts.parseJsonConfigFileContent(config, ts.sys, root);
  const program = ts.createProgram(files, { ...options, noEmit: true });
  const checker = program.getTypeChecker();

  /** @param {ts.Node} node @returns {ts.Symbol | undefined} */
  const symbolOf = (node) => {
    const symbol = checker.getSymbolAtLocation(node);
    return symbol && symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
  };

  /**
   * What an expression is when the code is loaded: a string, number, boolean, array, object or
   * function of constants, or UNKNOWN when it depends on what only the running code has.
   * @param {ts.Node} node @param {Scope} scope @param {number} depth @returns {unknown}
   */
  const evaluate = (node, scope, depth = 0) => {
    if (depth > 60) return UNKNOWN;
    const next = (/** @type {ts.Node} */ n, s = scope) => evaluate(n, s, depth + 1);
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
    if (ts.isNumericLiteral(node)) return Number(node.text.replace(/_/g, ''));
    if (node.kind === ts.SyntaxKind.TrueKeyword) return true;
    if (node.kind === ts.SyntaxKind.FalseKeyword) return false;
    if (node.kind === ts.SyntaxKind.NullKeyword) return null;
    if (ts.isParenthesizedExpression(node) || ts.isAsExpression(node) || ts.isSatisfiesExpression(node) || ts.isNonNullExpression(node))
      return next(node.expression);
    if (ts.isTemplateExpression(node)) {
      let text = node.head.text;
      for (const span of node.templateSpans) {
        const part = next(span.expression);
        if (part === UNKNOWN || (typeof part !== 'string' && typeof part !== 'number')) return UNKNOWN;
        text += String(part) + span.literal.text;
      }
      return text;
    }
    if (ts.isTaggedTemplateExpression(node)) return keyOf(node) === undefined ? UNKNOWN : next(node.template);
    if (ts.isBinaryExpression(node)) {
      const left = next(node.left);
      const right = next(node.right);
      if (left === UNKNOWN || right === UNKNOWN) return UNKNOWN;
      switch (node.operatorToken.kind) {
        case ts.SyntaxKind.PlusToken:
          return /** @type {string} */ (left) + /** @type {string} */ (right);
        case ts.SyntaxKind.EqualsEqualsEqualsToken:
          return left === right;
        case ts.SyntaxKind.ExclamationEqualsEqualsToken:
          return left !== right;
        case ts.SyntaxKind.AmpersandAmpersandToken:
          return left && right;
        case ts.SyntaxKind.BarBarToken:
          return left || right;
        case ts.SyntaxKind.QuestionQuestionToken:
          return left ?? right;
        default:
          return UNKNOWN;
      }
    }
    if (ts.isConditionalExpression(node)) {
      const condition = next(node.condition);
      return condition === UNKNOWN ? UNKNOWN : next(condition ? node.whenTrue : node.whenFalse);
    }
    if (ts.isArrayLiteralExpression(node)) {
      const out = [];
      for (const element of node.elements) {
        const value = next(ts.isSpreadElement(element) ? element.expression : element);
        if (value === UNKNOWN) return UNKNOWN;
        if (ts.isSpreadElement(element)) {
          if (!Array.isArray(value)) return UNKNOWN;
          out.push(...value);
        } else out.push(value);
      }
      return out;
    }
    if (ts.isObjectLiteralExpression(node)) {
      /** @type {Record<string, unknown>} */
      const out = {};
      for (const property of node.properties) {
        if (ts.isPropertyAssignment(property) && (ts.isIdentifier(property.name) || ts.isStringLiteral(property.name)))
          out[property.name.text] = next(property.initializer);
        else if (ts.isShorthandPropertyAssignment(property)) out[property.name.text] = next(property.name);
        else return UNKNOWN;
      }
      return Object.values(out).includes(UNKNOWN) ? UNKNOWN : out;
    }
    if (ts.isArrowFunction(node) || ts.isFunctionExpression(node))
      return /** @type {Closure} */ ({ params: node.parameters, body: node.body, scope });
    if (ts.isPropertyAccessExpression(node)) {
      const symbol = symbolOf(node);
      const declaration = symbol?.valueDeclaration;
      if (declaration && ts.isPropertyAssignment(declaration)) return next(declaration.initializer, new Map());
      const object = next(node.expression);
      if (object && typeof object === 'object' && !Array.isArray(object) && node.name.text in object)
        return /** @type {Record<string, unknown>} */ (object)[node.name.text];
      return UNKNOWN;
    }
    if (ts.isElementAccessExpression(node)) {
      const [object, key] = [next(node.expression), next(node.argumentExpression)];
      if (object === UNKNOWN || key === UNKNOWN || typeof object !== 'object' || object === null) return UNKNOWN;
      const value = /** @type {Record<string, unknown>} */ (object)[String(key)];
      return Object.hasOwn(object, String(key)) ? value : UNKNOWN;
    }
    if (ts.isIdentifier(node)) {
      if (node.text === 'undefined') return undefined;
      const symbol = symbolOf(node);
      if (!symbol) return UNKNOWN;
      if (scope.has(symbol)) return scope.get(symbol);
      const declaration = symbol.valueDeclaration;
      if (!declaration) return UNKNOWN;
      if (ts.isVariableDeclaration(declaration) && declaration.initializer && ts.getCombinedNodeFlags(declaration) & ts.NodeFlags.Const) {
        // A module's constant (a local one is in the scope when known).
        return ts.isSourceFile(declaration.parent.parent.parent) ? next(declaration.initializer, new Map()) : UNKNOWN;
      }
      if (ts.isFunctionDeclaration(declaration) && declaration.body)
        return /** @type {Closure} */ ({ params: declaration.parameters, body: declaration.body, scope: new Map() });
      return UNKNOWN;
    }
    if (ts.isCallExpression(node)) {
      if (ts.isPropertyAccessExpression(node.expression)) {
        const target = next(node.expression.expression);
        const args = node.arguments.map((argument) => next(argument));
        if (target === UNKNOWN || args.includes(UNKNOWN)) return UNKNOWN;
        const method = node.expression.name.text;
        if (Array.isArray(target)) {
          if (method === 'join') return target.join(/** @type {string} */ (args[0] ?? ','));
          if (method === 'map' && isClosure(args[0])) {
            const mapped = target.map((value) => call(/** @type {Closure} */ (args[0]), [value], depth));
            return mapped.includes(UNKNOWN) ? UNKNOWN : mapped;
          }
        }
        if (typeof target === 'string' && method === 'replace' && typeof args[0] === 'string')
          return target.replace(args[0], String(args[1]));
        if (typeof target === 'string' && method === 'split' && typeof args[0] === 'string') return target.split(args[0]);
        return UNKNOWN;
      }
      const callee = next(node.expression);
      const args = node.arguments.map((argument) => next(argument));
      return isClosure(callee) && !args.includes(UNKNOWN) ? call(callee, args, depth) : UNKNOWN;
    }
    return UNKNOWN;
  };

  /** @param {unknown} value @returns {value is Closure} */
  const isClosure = (value) => typeof value === 'object' && value !== null && 'body' in value && 'params' in value;

  /**
   * What a pure helper returns for `args`: its expression, or its block of `const`s and one `return`.
   * @param {Closure} closure @param {unknown[]} args @param {number} depth
   */
  const call = (closure, args, depth) => {
    const scope = new Map(closure.scope);
    for (const [index, param] of closure.params.entries()) {
      const symbol = symbolOf(param.name);
      if (!symbol) return UNKNOWN;
      let value = args[index];
      if (value === undefined && param.initializer) value = evaluate(param.initializer, scope, depth + 1);
      scope.set(symbol, value);
    }
    if (!ts.isBlock(closure.body)) return evaluate(closure.body, scope, depth + 1);
    for (const statement of closure.body.statements) {
      if (ts.isVariableStatement(statement)) {
        for (const declaration of statement.declarationList.declarations) {
          const symbol = symbolOf(declaration.name);
          if (!symbol || !declaration.initializer) return UNKNOWN;
          scope.set(symbol, evaluate(declaration.initializer, scope, depth + 1));
        }
      } else if (ts.isReturnStatement(statement) && statement.expression) return evaluate(statement.expression, scope, depth + 1);
      else return UNKNOWN;
    }
    return UNKNOWN;
  };

  /** The key of `sql('key')`…`` or `prepared('key')`…``. @param {ts.TaggedTemplateExpression} node */
  function keyOf(node) {
    const tag = node.tag;
    if (!ts.isCallExpression(tag) || !ts.isIdentifier(tag.expression) || !TAGS.has(tag.expression.text)) return undefined;
    const [argument] = tag.arguments;
    return argument && ts.isStringLiteral(argument) ? argument.text : undefined;
  }

  /** @type {KeyedStatement[]} */
  const keyed = [];
  /** @type {UnkeyedStatement[]} */
  const unkeyed = [];
  for (const file of files) {
    const source = program.getSourceFile(file);
    if (!source) continue;
    const path = relative(root, file);
    const lineOf = (/** @type {ts.Node} */ node) => source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
    /** @param {ts.Node} node */
    const visit = (node) => {
      if (ts.isTaggedTemplateExpression(node)) {
        const key = keyOf(node);
        if (key !== undefined) {
          const text = evaluate(node.template, new Map());
          if (typeof text !== 'string')
            throw new Error(`sql-statements: ${path}:${lineOf(node)}: the text of ${key} is not known before it runs`);
          keyed.push({ key, text, project: projectOf(path), file: path, line: lineOf(node) });
        }
      }
      if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && RUNNERS.has(node.expression.text)) {
        const statement = node.arguments[1];
        if (statement && !(ts.isTaggedTemplateExpression(statement) && keyOf(statement) !== undefined)) {
          const text = evaluate(statement, new Map());
          const keyedConstant = checker.typeToString(checker.getTypeAtLocation(statement)).startsWith('Sql<');
          if (!keyedConstant && text !== UNKNOWN)
            unkeyed.push({ file: path, line: lineOf(statement), text: JSON.stringify(text).slice(0, 80) });
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return { keyed, unkeyed };
}
