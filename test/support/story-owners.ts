/**
 * Stories whose pass is checked by a suite of their own rather than by the all-stories suite
 * (test/integration/scenarios.test.ts): that suite runs them anyway to check what they show, so it
 * checks their pass too, from the same runs, and no story runs twice at its own seed for the same check.
 */
import { it } from '@jest/globals';
import { expectStoryPassed, storyVerdict } from './story.js';

/** Story file → the integration suite (file name without `.test.ts`) that checks it passes. */
export const STORY_OWNERS: Readonly<Record<string, string>> = {
  'backup-snapshot-s3.yaml': 'scenarios-backup',
  'backup-restore-fresh-cluster.yaml': 'scenarios-backup',
  'backup-pitr-restore.yaml': 'scenarios-backup',
  'backup-job-pod-killed.yaml': 'scenarios-backup',
  'backup-clean-policy.yaml': 'scenarios-backup',
  'backup-schedule-day.yaml': 'scenarios-backup',
  'backup-compact.yaml': 'scenarios-compact',
  'backup-compact-refused.yaml': 'scenarios-compact',
  'backup-sweep-exporter-down.yaml': 'scenarios-backup-backstop',
  'backup-pitr-restore-gc-overlay.yaml': 'scenarios-backup-backstop',
  'initializer-example.yaml': 'scenarios-initializer',
  'initializer-wrong-password.yaml': 'scenarios-initializer',
  'pd-local-volume-node-lost.yaml': 'local-volume-stories',
  'tikv-local-volume-node-lost.yaml': 'local-volume-stories',
  'pdms-rolling-upgrade.yaml': 'pdms-stories',
  'exporter-catch-up.yaml': 'scenarios-exporter-catch-up',
  'two-eks-operations.yaml': 'two-eks-worlds',
};

/** The stories `suite` checks. */
export const storiesOwnedBy = (suite: string): string[] => Object.keys(STORY_OWNERS).filter((file) => STORY_OWNERS[file] === suite);

/**
 * Defines, where it is called (last in the suite, so the suite's own runs are reused), one test per
 * story `suite` owns: it passed at its own seed with no invariant violation.
 */
export function itChecksOwnedStoriesPass(suite: string): void {
  it.each(storiesOwnedBy(suite).map((file) => ({ file })))('$file passes with no invariant violation', async ({ file }) => expectStoryPassed(await storyVerdict(file)), 300_000);
}
