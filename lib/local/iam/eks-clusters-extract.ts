/**
 * The IAM of the template packaged for several EKS clusters (docs/adr/0027): serverless.yml's
 * conditional policies — `eks:DescribeCluster` for reconcile, sweep, admin and exporter, the admin's
 * access-entry reads — granted on exactly the clusters `eksClusterArns` lists. The checked-in extract
 * (`infra/iam/roles-eks-clusters.json`, `scripts/gen-iam-roles.ts --eks-clusters`) was packaged with
 * placeholder parameters; a local world with several clusters fills in its own clusters' ARNs, as a
 * deployer passes them, so the policies are the template's, not a copy.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { IamExtract } from './extract.js';

/** The `eksClusters` parameter the extract was packaged with (any non-empty value turns the policies on). */
export const EKS_CLUSTERS_PLACEHOLDER = '__EKS_CLUSTERS__';
/** The `eksClusterArns` parameter the extract was packaged with, replaced by the world's ARNs. */
export const EKS_CLUSTER_ARNS_PLACEHOLDER = '__EKS_CLUSTER_ARNS__';
/** Where the extract is kept. */
export const EKS_CLUSTERS_EXTRACT_PATH = fileURLToPath(new URL('../../../infra/iam/roles-eks-clusters.json', import.meta.url));

/** The EKS cluster ARN of `name` in `region` of `account` (`arn:aws:eks:<region>:<account>:cluster/<name>`). */
export function eksClusterArn(name: string, region: string, account: string, partition = 'aws'): string {
  return `arn:${partition}:eks:${region}:${account}:cluster/${name}`;
}

/**
 * The extract of a deployment whose `eksClusterArns` are `arns`: every occurrence of the placeholder
 * replaced by their comma-separated list, as osls substitutes the parameter. Throws when `arns` is
 * empty (the template needs one cluster at least) or the extract has no placeholder (it is stale).
 */
export function eksClustersIamExtract(arns: readonly string[], text: string = readFileSync(EKS_CLUSTERS_EXTRACT_PATH, 'utf8')): IamExtract {
  if (arns.length === 0) throw new TypeError('eksClusterArns lists at least one cluster');
  if (!text.includes(EKS_CLUSTER_ARNS_PLACEHOLDER)) throw new Error(`${EKS_CLUSTERS_EXTRACT_PATH} names no ${EKS_CLUSTER_ARNS_PLACEHOLDER}: run npx tsx scripts/gen-iam-roles.ts --eks-clusters`);
  return JSON.parse(text.split(EKS_CLUSTER_ARNS_PLACEHOLDER).join(arns.join(','))) as IamExtract;
}
