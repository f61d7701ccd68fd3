import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

/** Source files of functions/ (the route table apart: its length is the API's). */
function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return /\.(ts|mts)$/.test(name) && !name.endsWith('.generated.ts') ? [path] : [];
  });
}

describe('the functions', () => {
  it('keep every file under 400 lines but the route table: a longer one holds more than one thing', () => {
    const long = sources('functions')
      .map((path) => ({
        path: relative('.', path),
        lines: readFileSync(path, 'utf8').split('\n').length - 1,
      }))
      .filter((f) => f.lines > 400 && f.path !== 'functions/routes.ts');
    expect(long).toEqual([]);
  });
});
