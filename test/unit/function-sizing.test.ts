/**
 * What serverless.yml gives each function to run on (scripts/esbuild-options.ts
 * `serverlessFunctionSizing`), as the benches read it: its own memory size or parameter, else the
 * provider's; the provider's architecture unless it sets its own.
 */
import { describe, expect, it } from '@jest/globals';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serverlessFunctionSizing } from '../../scripts/esbuild-options.js';

const FILE = join(mkdtempSync(join(tmpdir(), 'sizing-')), 'serverless.yml');
writeFileSync(
  FILE,
  [
    'params:',
    '  default:',
    '    small: 192',
    'provider:',
    '  memorySize: 512',
    'functions:',
    '  plain: {handler: functions/plain.handler}',
    '  own: {handler: functions/own.handler, memorySize: 1024, architecture: x86_64}',
    '  param: {handler: functions/param.handler, memorySize: "${param:small}"}',
    '',
  ].join('\n'),
);

describe('function sizing from serverless.yml', () => {
  it.each([
    { name: 'the provider memory and the default architecture', fn: 'plain', expected: { memoryMb: 512, architecture: 'x86_64' } },
    { name: 'its own memory and architecture', fn: 'own', expected: { memoryMb: 1024, architecture: 'x86_64' } },
    { name: 'a parameter, read at its default stage value', fn: 'param', expected: { memoryMb: 192, architecture: 'x86_64' } },
  ])('$name', ({ fn, expected }) => {
    expect(serverlessFunctionSizing(fn, FILE)).toEqual(expected);
  });

  it('the project: every function on arm64, the exporter at its own 256 MB', () => {
    expect(serverlessFunctionSizing('exporter')).toEqual({ memoryMb: 256, architecture: 'arm64' });
    expect(serverlessFunctionSizing('reconcile')).toEqual({ memoryMb: 512, architecture: 'arm64' });
  });

  it('a function serverless.yml lacks is refused, naming it', () => {
    expect(() => serverlessFunctionSizing('nope', FILE)).toThrow('serverless.yml: no function "nope"');
  });
});
