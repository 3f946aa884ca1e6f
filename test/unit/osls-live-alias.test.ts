/**
 * The live-alias plugin (scripts/osls-live-alias.cjs) on osls's own naming, between the two compile
 * steps it hooks: every function gets osls's `targetAlias` (which osls's event, schedule and URL
 * compilers resolve to the alias ARN) and an `AWS::Lambda::Alias` on its published version; the
 * canary parameters add `RoutingConfig.AdditionalVersionWeights`; bad parameters fail naming the
 * parameter. The packaged template itself is checked in test/integration/serverless-package.test.ts.
 */
import { describe, expect, it } from '@jest/globals';
import { createRequire } from 'node:module';

type Hooks = Record<string, () => void>;
type Plugin = { hooks: Hooks };
type FunctionObject = { targetAlias?: { name: string; logicalId: string }; versionLogicalId?: string };

const require = createRequire(import.meta.url);
const LiveAliasPlugin = require('../../scripts/osls-live-alias.cjs') as new (serverless: unknown) => Plugin;
const naming = require('osls/lib/plugins/aws/lib/naming') as { getLambdaLogicalId(n: string): string; getNormalizedFunctionName(n: string): string };

class ServerlessError extends Error {}

/** Runs the plugin's two hooks around what osls does between them (publishing each function's version). */
function packageWith(liveAlias: Record<string, unknown>): { functions: Record<string, FunctionObject>; resources: Record<string, unknown> } {
  const functions: Record<string, FunctionObject> = { reconcile: {}, sweep: {} };
  const resources: Record<string, unknown> = {};
  const serverless = {
    classes: { Error: ServerlessError },
    getProvider: () => ({ naming }),
    service: {
      custom: { liveAlias },
      getAllFunctions: () => Object.keys(functions),
      getFunction: (name: string) => functions[name],
      provider: { compiledCloudFormationTemplate: { Resources: resources } },
    },
  };
  const plugin = new LiveAliasPlugin(serverless);
  plugin.hooks['before:package:compileFunctions']?.();
  for (const name of Object.keys(functions)) (functions[name] as FunctionObject).versionLogicalId = `${naming.getNormalizedFunctionName(name)}LambdaVersionAbc`;
  plugin.hooks['after:package:compileFunctions']?.();
  return { functions, resources };
}

const newVersion = (fn: string): unknown => ({ 'Fn::GetAtt': [`${fn}LambdaVersionAbc`, 'Version'] });

describe('the live alias plugin', () => {
  it('points every function\'s invokers at its alias, on the version just published', () => {
    const { functions, resources } = packageWith({ name: 'live', stableVersions: '', canaryWeight: '0' });
    expect(functions['reconcile']?.targetAlias).toEqual({ name: 'live', logicalId: 'ReconcileLiveAlias' });
    expect(resources['ReconcileLiveAlias']).toEqual({ Type: 'AWS::Lambda::Alias', Properties: { FunctionName: { Ref: 'ReconcileLambdaFunction' }, Name: 'live', FunctionVersion: newVersion('Reconcile') } });
    expect(resources['SweepLiveAlias']).toEqual(expect.objectContaining({ Properties: expect.objectContaining({ FunctionVersion: newVersion('Sweep') }) }));
  });

  it.each([
    {
      name: 'a canary: the listed function keeps its stable version and gives the new one its weight',
      liveAlias: { stableVersions: 'reconcile=7', canaryWeight: '0.1' },
      reconcile: { FunctionVersion: '7', RoutingConfig: { AdditionalVersionWeights: [{ FunctionVersion: newVersion('Reconcile'), FunctionWeight: 0.1 }] } },
      sweep: { FunctionVersion: newVersion('Sweep') },
    },
    {
      name: 'weight 0 with stable versions pins them (abort a canary, roll back)',
      liveAlias: { stableVersions: 'reconcile=7, sweep=5', canaryWeight: '0' },
      reconcile: { FunctionVersion: '7' },
      sweep: { FunctionVersion: '5' },
    },
  ])('$name', ({ liveAlias, reconcile, sweep }) => {
    const { resources } = packageWith({ name: 'live', ...liveAlias });
    const properties = (id: string): unknown => (resources[id] as { Properties: unknown }).Properties;
    expect(properties('ReconcileLiveAlias')).toEqual({ FunctionName: { Ref: 'ReconcileLambdaFunction' }, Name: 'live', ...reconcile });
    expect(properties('SweepLiveAlias')).toEqual({ FunctionName: { Ref: 'SweepLambdaFunction' }, Name: 'live', ...sweep });
  });

  it.each([
    { name: 'a weight of 1 (all to the canary is no canary: deploy without stableVersions)', liveAlias: { stableVersions: 'reconcile=7', canaryWeight: '1' }, error: /^canaryWeight: "1" must be a number from 0 to below 1/ },
    { name: 'a negative weight', liveAlias: { stableVersions: 'reconcile=7', canaryWeight: '-0.1' }, error: /^canaryWeight: "-0.1"/ },
    { name: 'a weight that is not a number', liveAlias: { stableVersions: 'reconcile=7', canaryWeight: 'ten' }, error: /^canaryWeight: "ten"/ },
    { name: 'a canary without stable versions', liveAlias: { stableVersions: '', canaryWeight: '0.2' }, error: /^canaryWeight: a canary needs stableVersions/ },
    { name: 'a stable version that is not function=number', liveAlias: { stableVersions: 'reconcile=$LATEST', canaryWeight: '0.2' }, error: /^stableVersions: "reconcile=\$LATEST" is not function=version/ },
    { name: 'a function the service does not have', liveAlias: { stableVersions: 'reconciler=7', canaryWeight: '0.2' }, error: /^stableVersions: "reconciler" is not a function of this service \(reconcile, sweep\)/ },
    { name: 'a function listed twice', liveAlias: { stableVersions: 'reconcile=7,reconcile=8', canaryWeight: '0' }, error: /^stableVersions: reconcile is listed twice/ },
  ])('refuses $name, naming the parameter', ({ liveAlias, error }) => {
    expect(() => packageWith({ name: 'live', ...liveAlias })).toThrow(error);
  });
});
