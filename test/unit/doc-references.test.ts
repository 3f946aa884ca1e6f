/**
 * Every reference in the repository points at something the repository has: file paths named in
 * code comments and docs (`docs/…md`, `lib/…ts`, `infra/…`, `scripts/…`, `test/…`), relative links in
 * Markdown, and no citation of notes kept outside it.
 */
import { describe, expect, it } from '@jest/globals';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');
const SCANNED = ['README.md', 'BENCHMARKS.md', 'serverless.yml', 'docs', 'lib', 'functions', 'bench', 'scripts', 'infra', 'test'];
const SKIPPED = new Set(['node_modules', 'fixtures', '.git']);
const TEXT = /\.(ts|md|ya?ml)$/;

function files(path: string): string[] {
  const full = join(ROOT, path);
  if (!existsSync(full)) return [];
  if (!statSync(full).isDirectory()) return TEXT.test(path) ? [path] : [];
  return readdirSync(full).filter((e) => !SKIPPED.has(e)).flatMap((e) => files(join(path, e)));
}

// A repository path as code and docs write it: a top-level folder, then a file name with an extension.
const REPO_PATH = /(?<![\w./-])((?:docs|lib|infra|scripts|functions|bench)\/[\w./-]*\w\.(?:md|ts|ya?ml|json)(?:\.gz)?)/g;
const MARKDOWN_LINK = /\]\(([^)#\s]+)(?:#[^)]*)?\)/g;
const OUTSIDE_NOTES = /\bDESIGN §|docs\/DESIGN\.md|\banchors [A-C]\.\d|toolchain §|(?<![\w-])tidb-operator(?:-data)?\.md|STYLE\.md|aesthetics\.md/;

const all = SCANNED.flatMap(files);

describe('references in the repository', () => {
  it('scans the code and the docs', () => {
    expect(all.length).toBeGreaterThan(100);
  });

  it('every repository path named in code and docs exists', () => {
    const missing = all.flatMap((file) =>
      [...readFileSync(join(ROOT, file), 'utf8').matchAll(REPO_PATH)]
        .map((m) => m[1] ?? '')
        .filter((path) => !path.includes('*') && !existsSync(join(ROOT, path)))
        .map((path) => `${file}: ${path}`),
    );
    expect(missing).toEqual([]);
  });

  it('every relative Markdown link resolves', () => {
    const missing = all
      .filter((file) => file.endsWith('.md'))
      .flatMap((file) =>
        [...readFileSync(join(ROOT, file), 'utf8').matchAll(MARKDOWN_LINK)]
          .map((m) => m[1] ?? '')
          .filter((target) => !/^[a-z]+:/.test(target))
          .filter((target) => !existsSync(join(ROOT, dirname(file), target)))
          .map((target) => `${file}: ${target}`),
      );
    expect(missing).toEqual([]);
  });

  it('nothing cites notes kept outside the repository', () => {
    const citing = all.filter((file) => file !== relative(ROOT, import.meta.filename) && OUTSIDE_NOTES.test(readFileSync(join(ROOT, file), 'utf8')));
    expect(citing).toEqual([]);
  });
});
