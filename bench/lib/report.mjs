// Markdown for the terminal and for docs/BENCHMARKS.md: tables, the machine, the commit.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, release, totalmem, type } from 'node:os';
import * as prettier from 'prettier';

export const BENCHMARKS_FILE = 'docs/BENCHMARKS.md';
const MARKER = '<!-- bench results, newest first -->';

/** A markdown table; `align` per column: 'l' or 'r' (default 'r' for all but the first). */
export function table(columns, rows, align = columns.map((_, i) => (i === 0 ? 'l' : 'r'))) {
  const cells = (row) => `| ${row.map((c) => String(c ?? '')).join(' | ')} |`;
  const rule = `|${align.map((a) => (a === 'l' ? ':---' : '---:')).join('|')}|`;
  return [cells(columns), rule, ...rows.map(cells)].join('\n');
}

export const fixed = (value, digits = 0) =>
  Number.isFinite(value) ? value.toFixed(digits) : String(value ?? '');

/** Where and on what the numbers were taken. */
export function machine() {
  const cpu = cpus();
  let os = `${type()} ${release()}`;
  if (existsSync('/etc/os-release')) {
    const name = /^PRETTY_NAME="?([^"\n]*)"?$/m.exec(readFileSync('/etc/os-release', 'utf8'));
    if (name) os = `${name[1]} (${type()} ${release()})`;
  }
  return {
    cpu: `${cpu[0]?.model ?? 'unknown'} × ${cpu.length}`,
    memory: `${(totalmem() / 2 ** 30).toFixed(1)} GiB`,
    os,
    node: process.version,
  };
}

export function gitCommit() {
  const git = (...args) => execFileSync('git', args, { encoding: 'utf8' }).trim();
  try {
    // Results written by an earlier --write do not make the code under test dirty.
    const changes = git(
      'status',
      '--porcelain',
      '--untracked-files=no',
      '--',
      '.',
      `:!${BENCHMARKS_FILE}`,
    );
    const dirty = changes !== '';
    return `${git('rev-parse', '--short=12', 'HEAD')}${dirty ? ' (with uncommitted changes)' : ''}`;
  } catch {
    return 'unknown';
  }
}

/** The whole section for one run: heading, how it was taken, then the body. */
export function section(title, command, body) {
  const m = machine();
  return [
    `### ${title}, ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC`,
    '',
    `- command: \`${command}\``,
    `- commit: ${gitCommit()}`,
    `- machine: ${m.cpu}, ${m.memory}, ${m.os}, Node ${m.node}`,
    '',
    body.trim(),
    '',
  ].join('\n');
}

/**
 * Inserts the section at the top of the results in docs/BENCHMARKS.md (made when missing),
 * formatted by the project's prettier so that `npm run lint` stays green.
 */
export async function writeSection(text) {
  const current = existsSync(BENCHMARKS_FILE) ? readFileSync(BENCHMARKS_FILE, 'utf8') : '';
  const [head, results = ''] = current.includes(MARKER)
    ? current.split(MARKER)
    : [INTRODUCTION, ''];
  const next = `${head.trimEnd()}\n\n${MARKER}\n\n${text.trim()}\n\n${results.trim()}`.trimEnd();
  const options = (await prettier.resolveConfig(BENCHMARKS_FILE)) ?? {};
  writeFileSync(
    BENCHMARKS_FILE,
    await prettier.format(`${next}\n`, { ...options, filepath: BENCHMARKS_FILE }),
  );
}

/** Only when docs/BENCHMARKS.md is missing; the file's own text explains the method. */
const INTRODUCTION = '# Benchmarks\n\nResults of `npm run bench -- --write` (bench/run.mjs).';
