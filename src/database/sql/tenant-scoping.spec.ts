import { readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';
import { CROSS_TENANT_PATHS } from './cross-tenant-paths.js';

/**
 * Tenant scoping by construction, read from the code itself: statements are issued only by
 * repositories (and the named infrastructure below), repositories reach the database only
 * through the three paths, and nothing but the paths writes their marks. With the statement
 * audit (statement-audit.ts), which refuses an unmarked statement on a tenant table at run
 * time, a query that forgets its tenant cannot be written without one of these failing.
 */
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../../..');

/**
 * Files that may hold a database handle and issue statements without being a repository,
 * each with its reason. Everything under src/database/ is the paths and their machinery.
 */
const INFRASTRUCTURE: Record<string, string> = {
  'src/queue/job-queue.service.ts': "pg-boss's own statements, in the caller's unit",
  'src/queue/boss-database.ts': "pg-boss's own pool",
  'src/health/database-probe.ts': 'SELECT 1 on a connection of its own',
  'src/auth/credentials-state.service.ts':
    'its LISTEN connection: a client of its own outside the pools (LISTEN, heartbeat SELECT 1)',
};

/** Types whose methods issue statements. */
const DATABASE_HANDLES = new Set([
  'TenantSql',
  'CrossTenantSql',
  'SharedSql',
  'SqlRunner',
  'EntityManager',
  'DataSource',
  'QueryRunner',
  'PostgresQueryRunner',
  'Pool',
  'Client',
  'PoolClient',
  'GuardedClient',
  'SelectQueryBuilder',
]);
const ISSUING_METHODS = new Set([
  'rows',
  'first',
  'count',
  'query',
  'transaction',
  'createQueryBuilder',
  'find',
  'findOne',
  'findOneBy',
  'findOneByOrFail',
  'findBy',
  'save',
  'insert',
  'update',
  'delete',
  'upsert',
]);
const ISSUING_FUNCTIONS = new Set(['execute']);

/** SQL statement text in a string literal. */
const SQL_TEXT =
  /\b(SELECT\b[\s\S]*\bFROM|INSERT\s+INTO|UPDATE\s+"?\w+"?\s+(\w+\s+)?SET|DELETE\s+FROM|TRUNCATE)\b/;

interface Finding {
  file: string;
  line: number;
  what: string;
}

let program: ts.Program;
let sources: ts.SourceFile[];

function isInfrastructure(file: string): boolean {
  return file.startsWith('src/database/') || file in INFRASTRUCTURE;
}

function isRepository(file: string): boolean {
  return file.endsWith('.repository.ts');
}

function lineOf(source: ts.SourceFile, node: ts.Node): number {
  return source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
}

function walk(node: ts.Node, visit: (node: ts.Node) => void): void {
  visit(node);
  node.forEachChild((child) => walk(child, visit));
}

function typeName(checker: ts.TypeChecker, node: ts.Node): string | undefined {
  const type = checker.getTypeAtLocation(node);
  const symbol = type.getSymbol() ?? type.aliasSymbol;
  return symbol?.getName();
}

/** Calls that send a statement to the database: a handle's method or the low-level runners. */
function statementCalls(source: ts.SourceFile, file: string): Finding[] {
  const checker = program.getTypeChecker();
  const found: Finding[] = [];
  walk(source, (node) => {
    if (!ts.isCallExpression(node)) return;
    const callee = node.expression;
    if (ts.isPropertyAccessExpression(callee) && ISSUING_METHODS.has(callee.name.text)) {
      const receiver = typeName(checker, callee.expression);
      if (receiver && DATABASE_HANDLES.has(receiver)) {
        found.push({ file, line: lineOf(source, node), what: `${receiver}.${callee.name.text}` });
      }
    } else if (ts.isIdentifier(callee) && ISSUING_FUNCTIONS.has(callee.text)) {
      found.push({ file, line: lineOf(source, node), what: callee.text });
    }
  });
  return found;
}

/** String literals that hold SQL statement text. */
function sqlTexts(source: ts.SourceFile, file: string): Finding[] {
  const found: Finding[] = [];
  walk(source, (node) => {
    let text: string | undefined;
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) text = node.text;
    else if (ts.isTemplateExpression(node)) {
      text = [node.head.text, ...node.templateSpans.map((s) => s.literal.text)].join(' ? ');
    }
    if (text !== undefined && SQL_TEXT.test(text)) {
      found.push({
        file,
        line: lineOf(source, node),
        what: text.slice(0, 60).replace(/\s+/g, ' '),
      });
    }
  });
  return found;
}

/** Imports of a database handle's module by a repository (it takes the paths instead). */
function handleImports(source: ts.SourceFile, file: string): Finding[] {
  const found: Finding[] = [];
  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement)) continue;
    const from = (statement.moduleSpecifier as ts.StringLiteral).text;
    if (/^(typeorm|pg)(\/|$)|\/(transactions|background-transactions|execute)\.js$/.test(from)) {
      found.push({ file, line: lineOf(source, statement), what: `imports ${from}` });
    }
  }
  return found;
}

function findingsOf(file: string): Finding[] {
  const source = sources.find((s) => relative(ROOT, s.fileName) === file)!;
  const found: Finding[] = [];
  if (!isRepository(file) && !isInfrastructure(file)) {
    found.push(...statementCalls(source, file));
    // SQL builders (`*.sql.ts`) hold statement text for repositories and never run it.
    if (!file.endsWith('.sql.ts')) found.push(...sqlTexts(source, file));
  }
  if (isRepository(file)) found.push(...handleImports(source, file));
  return found;
}

const format = (findings: Finding[]) => findings.map((f) => `${f.file}:${f.line} ${f.what}`);

describe('tenant scoping by construction', () => {
  beforeAll(() => {
    const config = ts.getParsedCommandLineOfConfigFile(
      join(ROOT, 'tsconfig.json'),
      {},
      { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined },
    )!;
    const files = config.fileNames.filter((f) => f.startsWith(join(ROOT, 'src/')));
    program = ts.createProgram(files, { ...config.options, incremental: false, noEmit: true });
    sources = program.getSourceFiles().filter((s) => {
      const file = relative(ROOT, s.fileName);
      return file.startsWith('src/') && !file.endsWith('.spec.ts') && !file.endsWith('.d.ts');
    });
  }, 120_000);

  it('issues statements only from repositories and the named infrastructure, SQL text only there', () => {
    const findings = sources.map((s) => relative(ROOT, s.fileName)).flatMap(findingsOf);
    expect(format(findings)).toEqual([]);
  });

  it('lets only the paths write their marks', () => {
    const marks = /\/\* (tenant|cross-tenant:)/;
    const writers = sources
      .filter((s) => marks.test(s.text))
      .map((s) => relative(ROOT, s.fileName));
    expect(writers).toEqual(['src/database/sql/statement-marks.ts']);
    const importers = sources
      .filter((s) => s.text.includes('statement-marks.js'))
      .map((s) => relative(ROOT, s.fileName))
      .sort();
    expect(importers).toEqual([
      'src/database/sql/cross-tenant-sql.ts',
      'src/database/sql/shared-sql.ts',
      'src/database/sql/statement-audit.ts',
      'src/database/sql/tenant-sql.ts',
    ]);
  });

  it('uses every allow-listed cross-tenant path, and each says why', () => {
    const used = new Set<string>();
    for (const source of sources) {
      for (const match of source.text.matchAll(/crossTenant\(\s*'([\w-]+)'/g)) used.add(match[1]);
    }
    for (const [path, reason] of Object.entries(CROSS_TENANT_PATHS as Record<string, string>)) {
      expect([...used]).toContain(path);
      expect(reason.length).toBeGreaterThan(40);
    }
  });

  it('keeps the infrastructure list to files that exist', () => {
    for (const file of Object.keys(INFRASTRUCTURE)) {
      expect(() => readFileSync(join(ROOT, file))).not.toThrow();
    }
  });
});
