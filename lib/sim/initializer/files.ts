/**
 * What a TiDB initializer pod's containers find mounted (v1's Job, lib/reconcile/tidb-initializer/
 * job.ts): the scripts from the ConfigMap volumes `start-script` / `init-start-script`, the password
 * files from the Secret volume `password` (/etc/tidb/password: one file per key), and /data/init.sql
 * from the ConfigMap volume `init-sql` — read from the store as the kubelet projects them. And what
 * the simulated mysql-client understands of `start_script.py`: the parameters and blocks of TiDB
 * Operator's template (v1's, or this project's re-runnable one); any other script is not simulated.
 */
import type { KubeObject } from '../object.js';
import type { ObjectStore } from '../store.js';

type Volume = { name?: string; configMap?: { name?: string; items?: { key?: string; path?: string }[] }; secret?: { secretName?: string } };

/** The content of `key` of the ConfigMap a volume of the pod projects, or undefined. */
export function configMapFile(store: ObjectStore, pod: KubeObject, volume: string, key: string): string | undefined {
  const v = volumesOf(pod).find((x) => x.name === volume);
  const name = v?.configMap?.name;
  if (name === undefined) return undefined;
  const cm = store.get('ConfigMap', pod.metadata.namespace ?? '', name);
  const data = (cm?.['data'] as Record<string, string> | undefined) ?? {};
  return data[key];
}

/** The files of the Secret volume `volume` (key → decoded value; keys starting with `.` skipped, as the script does), or undefined. */
export function secretFiles(store: ObjectStore, pod: KubeObject, volume: string): Map<string, string> | undefined {
  const name = volumesOf(pod).find((x) => x.name === volume)?.secret?.secretName;
  if (name === undefined) return undefined;
  const secret = store.get('Secret', pod.metadata.namespace ?? '', name);
  if (!secret) return undefined;
  const data = (secret['data'] as Record<string, string> | undefined) ?? {};
  const out = new Map<string, string>();
  for (const key of Object.keys(data).sort()) if (!key.startsWith('.')) out.set(key, Buffer.from(data[key] ?? '', 'base64').toString('utf8'));
  return out;
}

function volumesOf(pod: KubeObject): Volume[] {
  return (pod.spec?.volumes ?? []) as Volume[];
}

/** What `start_script.py` does, read off TiDB Operator's template. */
export type StartScript = {
  readonly host: string;
  readonly port: number;
  readonly permitHost: string;
  /** This project's login: the empty root password, then the Secret's; v1's tries only the empty one. */
  readonly rerunnableLogin: boolean;
  readonly setsPasswords: boolean;
  /** `create user if not exists` + `alter user` (this project's) rather than v1's `create user`. */
  readonly idempotentUsers: boolean;
  readonly runsInitSql: boolean;
  /** The script's lines (for the traceback's line numbers). */
  readonly lines: readonly string[];
};

/** Reads the template's parameters and blocks; undefined when the script is not TiDB Operator's initializer. */
export function readStartScript(text: string): StartScript | undefined {
  const host = /^host = '([^']+)'$/m.exec(text)?.[1];
  const port = /^port = (\d+)$/m.exec(text)?.[1];
  const permitHost = /^permit_host = '([^']*)'$/m.exec(text)?.[1];
  if (host === undefined || port === undefined || permitHost === undefined || !text.includes('MySQLdb.connect(')) return undefined;
  return {
    host,
    port: Number(port),
    permitHost,
    rerunnableLogin: text.includes('for password in passwords:'),
    setsPasswords: text.includes('for file in os.listdir(password_dir):'),
    idempotentUsers: text.includes('create user if not exists'),
    runsInitSql: text.includes("open('/data/init.sql', 'r')"),
    lines: text.split('\n'),
  };
}

/** The 1-based line of the script that holds `fragment` (0 when none). */
export function lineOf(script: StartScript, fragment: string): number {
  return script.lines.findIndex((l) => l.includes(fragment)) + 1;
}
