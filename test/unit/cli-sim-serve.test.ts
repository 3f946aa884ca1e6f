import { describe, expect, it } from '@jest/globals';
import { parseSimServeArgs } from '../../lib/cli/sim-serve.js';

describe('sim serve: the VPC proxy port', () => {
  it.each([
    { name: 'a free port by default', args: [], vpcPort: 0 },
    { name: 'the port given', args: ['--vpc-port', '7443'], vpcPort: 7443 },
  ])('$name', ({ args, vpcPort }) => {
    expect(parseSimServeArgs(args).vpcPort).toBe(vpcPort);
  });

  it.each([
    { name: 'not a number', value: 'http' },
    { name: 'out of range', value: '70000' },
  ])('--vpc-port refuses $name, naming the option', ({ value }) => {
    expect(() => parseSimServeArgs(['--vpc-port', value])).toThrow(`--vpc-port: "${value}" is not a port number`);
  });
});
