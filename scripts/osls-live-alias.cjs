'use strict';
/**
 * An osls plugin: every function is published as a version (osls's `versionFunctions`, on by
 * default) behind one alias, `custom.liveAlias.name`, and everything that invokes a function
 * invokes that alias — the SQS event source mapping, the rate schedules (EventBridge Scheduler
 * targets), the function URL — so an upgrade changes what runs by moving the alias, and a rollback
 * moves it back to a version that still exists (osls retains every version it publishes).
 *
 * It sets osls's own `targetAlias` of each function before the functions and events are compiled,
 * which osls's compilers already honour (`resolveLambdaTarget`: `Fn::Join [':', [<fn ARN>, <alias>]]`
 * and a DependsOn on the alias), and adds the `AWS::Lambda::Alias` itself once the version exists.
 *
 * A weighted canary (https://docs.aws.amazon.com/lambda/latest/dg/configuring-alias-routing.html,
 * CloudFormation `AWS::Lambda::Alias` `RoutingConfig.AdditionalVersionWeights`): with
 * `stableVersions` (`reconcile=7,sweep=5`: per function, the published version the alias keeps as
 * its primary) and `canaryWeight` (0 ≤ w < 1), the alias of each listed function sends `w` of its
 * invocations to the version this deploy publishes and the rest to its stable version; `canaryWeight`
 * 0 pins the listed functions to their stable versions (abort a canary, or roll back). Functions not
 * listed point at the new version. Bad values fail the package naming the parameter.
 */

const ALIAS_SUFFIX = 'LiveAlias';

class LiveAliasPlugin {
  constructor(serverless) {
    this.serverless = serverless;
    this.hooks = {
      'before:package:compileFunctions': () => this.targetAliases(),
      'after:package:compileFunctions': () => this.addAliases(),
    };
  }

  settings() {
    const custom = (this.serverless.service.custom && this.serverless.service.custom.liveAlias) || {};
    const name = String(custom.name || 'live');
    const weightText = String(custom.canaryWeight === undefined || custom.canaryWeight === null ? '0' : custom.canaryWeight).trim();
    const weight = Number(weightText);
    if (!/^(0(\.\d+)?|\.\d+)$/.test(weightText) || !(weight >= 0 && weight < 1)) {
      throw new this.serverless.classes.Error(`canaryWeight: "${weightText}" must be a number from 0 to below 1 (the share of invocations the new version gets)`);
    }
    const stable = parseStableVersions(String(custom.stableVersions || ''), this.serverless);
    for (const fn of Object.keys(stable)) {
      if (!this.serverless.service.getAllFunctions().includes(fn)) {
        throw new this.serverless.classes.Error(`stableVersions: "${fn}" is not a function of this service (${this.serverless.service.getAllFunctions().join(', ')})`);
      }
    }
    if (weight > 0 && Object.keys(stable).length === 0) {
      throw new this.serverless.classes.Error('canaryWeight: a canary needs stableVersions (fn=version,…: the versions that keep the rest of the invocations)');
    }
    return { name, weight, stable };
  }

  /** Points every invoker of every function at its alias (before osls compiles functions and events). */
  targetAliases() {
    const { name } = this.settings();
    const naming = this.serverless.getProvider('aws').naming;
    for (const fn of this.serverless.service.getAllFunctions()) {
      const functionObject = this.serverless.service.getFunction(fn);
      if (functionObject.targetAlias) throw new this.serverless.classes.Error(`${fn}: provisionedConcurrency, snapStart and durable functions bring their own alias; the live alias cannot be added`);
      functionObject.targetAlias = { name, logicalId: `${naming.getNormalizedFunctionName(fn)}${ALIAS_SUFFIX}` };
    }
  }

  /** Adds each function's alias on the version osls published for it (and the canary's weights). */
  addAliases() {
    const { name, weight, stable } = this.settings();
    const naming = this.serverless.getProvider('aws').naming;
    const resources = this.serverless.service.provider.compiledCloudFormationTemplate.Resources;
    for (const fn of this.serverless.service.getAllFunctions()) {
      const functionObject = this.serverless.service.getFunction(fn);
      if (!functionObject.versionLogicalId) throw new this.serverless.classes.Error(`${fn}: no published version (versionFunctions is off); the live alias needs one`);
      const newVersion = { 'Fn::GetAtt': [functionObject.versionLogicalId, 'Version'] };
      const stableVersion = stable[fn];
      const properties = { FunctionName: { Ref: naming.getLambdaLogicalId(fn) }, Name: name, FunctionVersion: stableVersion === undefined ? newVersion : stableVersion };
      if (stableVersion !== undefined && weight > 0) properties.RoutingConfig = { AdditionalVersionWeights: [{ FunctionVersion: newVersion, FunctionWeight: weight }] };
      resources[functionObject.targetAlias.logicalId] = { Type: 'AWS::Lambda::Alias', Properties: properties };
    }
  }
}

/** `reconcile=7, sweep=5` → { reconcile: '7', sweep: '5' }; throws naming the bad entry. */
function parseStableVersions(text, serverless) {
  const out = {};
  for (const entry of text.split(',').map((e) => e.trim()).filter((e) => e !== '')) {
    const match = /^([A-Za-z0-9_-]+)=([1-9][0-9]*)$/.exec(entry);
    if (!match) throw new serverless.classes.Error(`stableVersions: "${entry}" is not function=version (a published version number, e.g. reconcile=7)`);
    if (out[match[1]] !== undefined) throw new serverless.classes.Error(`stableVersions: ${match[1]} is listed twice`);
    out[match[1]] = match[2];
  }
  return out;
}

module.exports = LiveAliasPlugin;
