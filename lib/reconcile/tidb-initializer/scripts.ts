/**
 * The two scripts of the initializer's ConfigMap. `init-start-script` is v1's verbatim
 * (`tidbInitInitStartScriptTpl`, `pkg/manager/member/startscript/v1/template.go` on release-1.6):
 * the `wait` init container loops `nc -zv -w 3 <cluster>-tidb <port>` every second until TiDB's
 * Service answers. `start-script` is v1's python (`tidbInitStartScriptTpl`, same file) with two
 * changes that make a re-run succeed where v1's fails (#737, #3353):
 *   - root logs in with the empty password first and, when TiDB refuses it, with the Secret's `root`
 *     password — a cluster whose root password is already the Secret's is initialised again, not
 *     refused with "Access denied" ten times;
 *   - other users are created `if not exists` and then given the Secret's password (`alter user`),
 *     instead of a `create user` that fails once the user exists.
 * Everything else (10 attempts 1 s apart, 5 s connect timeout, TLS per the cluster, init.sql line by
 * line, `permitHost` rewrite, `flush privileges`) is v1's.
 */

/** What the scripts depend on (v1's `TiDBInitStartScriptModel`). */
export type StartScriptModel = {
  readonly clusterName: string;
  readonly permitHost: string;
  readonly passwordSet: boolean;
  readonly initSql: boolean;
  readonly tidbServicePort: number;
  /** TiDB client TLS: the CA is skipped when `skipCA` (the cluster's `tlsClient.skipInternalClientCA`). */
  readonly tls?: { readonly skipCA: boolean };
};

/** Where v1 mounts the TiDB client certificate (`util.TiDBClientTLSPath`). */
export const TIDB_CLIENT_TLS_PATH = '/var/lib/tidb-client-tls';

/** The loop of this project's re-runnable root login (lib/sim/initializer/files.ts recognises the script by it). */
const RERUNNABLE_LOGIN = 'for password in passwords:';

/** v1's `init_start_script.sh`, verbatim. */
export function initStartScript(clusterName: string, tidbServicePort: number): string {
  return `trap exit TERM
host=${clusterName}-tidb
port=${tidbServicePort}
while true; do
  nc -zv -w 3 $host $port
  if [ $? -eq 0 ]; then
	break
  else
	echo "info: failed to connect to $host:$port, sleep 1 second then retry"
	sleep 1
  fi
done
echo "info: successfully connected to $host:$port, able to initialize TiDB now"
`;
}

/** `start_script.py`: v1's, with the re-runnable root login and user creation described above. */
export function startScript(m: StartScriptModel): string {
  const ssl = m.tls === undefined ? '' : m.tls.skipCA
    ? `, ssl={'cert': '${TIDB_CLIENT_TLS_PATH}/tls.crt', 'key': '${TIDB_CLIENT_TLS_PATH}/tls.key'}`
    : `, ssl={'ca': '${TIDB_CLIENT_TLS_PATH}/ca.crt', 'cert': '${TIDB_CLIENT_TLS_PATH}/tls.crt', 'key': '${TIDB_CLIENT_TLS_PATH}/tls.key'}`;
  const lines = [
    'import os, sys, time, MySQLdb',
    `host = '${m.clusterName}-tidb'`,
    `permit_host = '${m.permitHost}'`,
    `port = ${m.tidbServicePort}`,
    "password_dir = '/etc/tidb/password'",
    'passwords = [\'\']',
    ...(m.passwordSet
      ? [
          "if os.path.isfile(os.path.join(password_dir, 'root')):",
          "    with open(os.path.join(password_dir, 'root'), 'r') as f:",
          '        lines = f.read().splitlines()',
          "        if len(lines) > 0 and lines[0] != '':",
          '            passwords.append(lines[0])',
        ]
      : []),
    'conn = None',
    'for i in range(0, 10):',
    `    ${RERUNNABLE_LOGIN}`,
    '        try:',
    `            conn = MySQLdb.connect(host=host, port=port, user='root', passwd=password, connect_timeout=5, charset='utf8mb4'${ssl})`,
    '        except MySQLdb.OperationalError as e:',
    '            print(e)',
    '            continue',
    '        break',
    '    if conn is not None:',
    '        break',
    '    time.sleep(1)',
    'if conn is None:',
    '    sys.exit(1)',
    ...(m.passwordSet
      ? [
          'for file in os.listdir(password_dir):',
          "    if file.startswith('.'):",
          '        continue',
          '    user = file',
          "    with open(os.path.join(password_dir, file), 'r') as f:",
          '        lines = f.read().splitlines()',
          '        password = lines[0] if len(lines) > 0 else ""',
          "    if user == 'root':",
          '        conn.cursor().execute("set password for \'root\'@\'%%\' = %s;", (password,))',
          '    else:',
          '        conn.cursor().execute("create user if not exists %s@%s identified by %s;", (user, permit_host, password,))',
          '        conn.cursor().execute("alter user %s@%s identified by %s;", (user, permit_host, password,))',
        ]
      : []),
    ...(m.initSql
      ? ["with open('/data/init.sql', 'r') as sql:", '    for line in sql.readlines():', '        conn.cursor().execute(line)', '        conn.commit()']
      : []),
    "if permit_host != '%%':",
    '    conn.cursor().execute("update mysql.user set Host=%s where User=\'root\';", (permit_host,))',
    'conn.cursor().execute("flush privileges;")',
    'conn.commit()',
    'conn.close()',
  ];
  return `${lines.join('\n')}\n`;
}
