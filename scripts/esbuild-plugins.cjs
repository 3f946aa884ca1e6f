/**
 * The esbuild plugins of every Lambda bundle, named by serverless.yml (`custom.esbuild.plugins`),
 * so `npm run package` (serverless-esbuild requires this file), `npm run build` and the bundle
 * benchmark (scripts/esbuild-options.ts loads it) build the same bundles.
 *
 * `leaveOut` keeps modules out that @kubernetes/client-node's KubeConfig module imports statically
 * but no function reaches: each is replaced by a module whose exports throw when used, naming what
 * was left out and why. Together they were more than half of a bundle and of its module init (see
 * BENCHMARKS.md). A new import of a left-out module by a new client-node version fails the build
 * (esbuild: "No matching export"), never silently at run time.
 */
'use strict';

/** What is left out, the names its importers take from it, and why no function needs it. */
const LEFT_OUT = [
  {
    name: 'undici',
    filter: /^undici$/,
    exports: ['Agent', 'ProxyAgent', 'fetch'],
    why: "client-node's fetch transport; requests go through Node's http client (lib/kube/http.ts)",
  },
  {
    name: 'kubeconfig proxy agents',
    filter: /^(socks|socks-proxy-agent|hpagent)$/,
    exports: ['SocksClient', 'SocksProxyAgent', 'HttpProxyAgent', 'HttpsProxyAgent'],
    why: 'kubeconfig proxy-url support; the Lambda kubeconfig (eksKubeConfig) has no proxy',
  },
  {
    name: 'client-node generated API clients',
    filter: /^\.\/gen\/index\.js$/,
    importer: /@kubernetes[\\/]client-node[\\/]dist[\\/]config\.js$/,
    exports: ['createConfiguration', 'ServerConfiguration'],
    why: 'KubeConfig.makeApiClient; the reconciler speaks REST through KubeHttp (lib/kube/http.ts)',
  },
];

/** The source of the module standing in for `entry`: every export throws when called or constructed. */
function stubSource(entry, path) {
  const message = JSON.stringify(`${path} is left out of the Lambda bundles (${entry.why}); see scripts/esbuild-plugins.cjs`);
  return [
    `const leftOut = function () { throw new Error(${message}); };`,
    ...entry.exports.map((name) => `export const ${name} = leftOut;`),
    'export default leftOut;',
    '',
  ].join('\n');
}

/** Replaces the modules of `LEFT_OUT` with throwing stand-ins. */
const leaveOut = {
  name: 'leave-out',
  setup(build) {
    LEFT_OUT.forEach((entry, index) => {
      build.onResolve({ filter: entry.filter }, (args) => {
        if (entry.importer && !entry.importer.test(args.importer)) return undefined;
        return { path: `${index}:${args.path}`, namespace: 'left-out' };
      });
    });
    build.onLoad({ filter: /.*/, namespace: 'left-out' }, (args) => {
      const colon = args.path.indexOf(':');
      const entry = LEFT_OUT[Number(args.path.slice(0, colon))];
      return { contents: stubSource(entry, args.path.slice(colon + 1)), loader: 'js' };
    });
  },
};

/**
 * Node's own modules, loaded with `require` (the bundle's createRequire banner) rather than
 * `import`: importing a built-in as an ES module builds its namespace from every export, running
 * the lazy getters (`http.WebSocket` loads Node's internal undici, `tls.rootCertificates` parses
 * every root certificate, `crypto.webcrypto` starts Web Crypto); `require` returns the object and
 * runs a getter only when the code reads it. The bundle's importers see the same exports.
 */
const builtinsByRequire = {
  name: 'builtins-by-require',
  setup(build) {
    const builtins = new Set(require('node:module').builtinModules);
    build.onResolve({ filter: /^[a-z_:/]+$/ }, (args) => {
      const bare = args.path.startsWith('node:') ? args.path.slice(5) : args.path;
      if (!builtins.has(bare) || args.namespace === 'builtin') return undefined;
      return { path: args.path, namespace: 'builtin' };
    });
    build.onLoad({ filter: /.*/, namespace: 'builtin' }, (args) => ({ contents: `module.exports = require(${JSON.stringify(args.path)});`, loader: 'js' }));
    // The require inside each stand-in is Node's own: left external.
    build.onResolve({ filter: /.*/, namespace: 'builtin' }, (args) => ({ path: args.path, external: true }));
  },
};

module.exports = [leaveOut, builtinsByRequire];
module.exports.LEFT_OUT = LEFT_OUT;
