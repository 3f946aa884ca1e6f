import { describe, expect, it } from '@jest/globals';

import { componentError } from '../../lib/components/caller.js';
import { kubeError } from '../../lib/kube/errors.js';
import { ECHO_MAX_BYTES, clipForEcho, quoteForEcho } from '../../lib/model/echo.js';

const bytes = (text: string): number => Buffer.byteLength(text, 'utf8');

describe('bad input echoed into logs, errors and answers is clipped to 1 KB, saying how large it was', () => {
  it.each([
    { name: 'a short value is shown whole', input: 'basic', clipped: 'basic' },
    { name: 'exactly 1 024 bytes are shown whole', input: 'a'.repeat(1024), clipped: 'a'.repeat(1024) },
    { name: 'a 100 KB value shows its first 1 024 bytes and its size', input: 'a'.repeat(102_400), clipped: `${'a'.repeat(1024)}… (102400 bytes, first 1024 shown)` },
    { name: 'a character is never split (3-byte characters: 341 whole ones fit)', input: '€'.repeat(1000), clipped: `${'€'.repeat(341)}… (3000 bytes, first 1023 shown)` },
  ])('clipForEcho: $name', ({ input, clipped }) => {
    expect(clipForEcho(input)).toBe(clipped);
  });

  it.each([
    { name: 'a short value is quoted as JSON', input: 'a"b', quoted: '"a\\"b"' },
    { name: 'a 100 KB value is quoted up to 1 024 bytes, then its size', input: 'k'.repeat(102_400), quoted: `"${'k'.repeat(1023)}… (102400 bytes, first 1024 shown)` },
  ])('quoteForEcho: $name', ({ input, quoted }) => {
    expect(quoteForEcho(input)).toBe(quoted);
  });

  it.each([
    { name: '1.5 MB of control characters (6 bytes each once escaped)', input: '\u0001'.repeat(1_500_000) },
    { name: '1.5 MB of 4-byte characters', input: '😀'.repeat(375_000) },
    { name: '1 000 control characters (under the limit raw, over it escaped)', input: '\u0001'.repeat(1000) },
  ])('quoteForEcho stays within the limit plus its note: $name', ({ input }) => {
    // Act
    const quoted = quoteForEcho(input);
    // Assess
    expect(bytes(quoted)).toBeLessThanOrEqual(ECHO_MAX_BYTES + 50);
    expect(quoted).toMatch(new RegExp(`… \\(${bytes(input)} bytes, first \\d+ shown\\)$`));
  });

  it.each([
    { name: 'a Status message quoting a 100 KB value', error: () => kubeError('create ConfigMap demo/x', 422, JSON.stringify({ kind: 'Status', reason: 'Invalid', message: `data: Invalid value: "${'v'.repeat(102_400)}"` })) },
    { name: 'a 100 KB answer that is not a Status', error: () => kubeError('get Pod demo/x', 502, 'e'.repeat(102_400)) },
    { name: 'a 100 KB component error body', error: () => componentError('PD stores', 500, 'p'.repeat(102_400)) },
  ])('a remote error echoes at most 1 KB of what the other end sent: $name', ({ error }) => {
    // Act
    const message = error().message;
    // Assess
    expect(bytes(message)).toBeLessThan(1_200);
    expect(message).toMatch(/… \(\d{6} bytes, first 1024 shown\)$/);
  });
});
